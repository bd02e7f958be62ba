import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback TCP forwarder of the test's own, between a client and a real server, that can cut a connection right
/// after the server answered a chosen command: the command reaches the server and takes effect, its reply is thrown
/// away and both sides see the connection drop — the moment a retry must not lose anything.
///
/// ``cut(afterCommandContaining:)`` arms it once: the first connection whose client sends bytes containing the marker
/// is cut when the server's next bytes arrive (they are not forwarded). Every other byte is forwarded unchanged.
/// Blocking sockets, two threads per connection; it lives as long as the test holds it (``stop()`` closes all).
public final class CuttingProxy: Sendable {
    public let port: Int
    private let listener: Int32
    private let target: (host: String, port: Int)
    private struct State {
        var marker: [UInt8]?
        var cuts = 0
        var sockets: [Int32] = []
        var stopped = false
    }
    private let state = Mutex(State())

    /// Listens on a free loopback port and forwards each connection to `host:port`.
    public init(to host: String, port targetPort: Int) throws {
        target = (host, targetPort)
        port = try UnusedPort.find()
        listener = try Self.listen(on: port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The next connection that sends `marker` is cut after the server's reply to it.
    public func cut(afterCommandContaining marker: String) {
        state.withLock { $0.marker = Array(marker.utf8) }
    }

    /// Connections cut so far.
    public var cuts: Int { state.withLock { $0.cuts } }

    /// Closes the listener and every forwarded connection.
    public func stop() {
        let sockets = state.withLock { state -> [Int32] in
            state.stopped = true
            return state.sockets
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = try? Self.connect(to: target.host, port: target.port) else {
                close(client)
                continue
            }
            let stopped = state.withLock { state -> Bool in
                state.sockets += [client, server]
                return state.stopped
            }
            if stopped {
                close(client)
                close(server)
                return
            }
            let cutPending = CutFlag()
            Thread { [self] in pump(from: client, to: server, cutPending: cutPending, watches: true) }.start()
            Thread { [self] in pump(from: server, to: client, cutPending: cutPending, watches: false) }.start()
        }
    }

    /// Forwards `source` to `destination` until either closes. Client to server: watches for the marker (the tail of
    /// the previous read kept, so a marker split across reads is found). Server to client: cuts when one is pending.
    private func pump(from source: Int32, to destination: Int32, cutPending: CutFlag, watches: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var tail: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            let chunk = Array(buffer[..<count])
            if watches, let marker = state.withLock({ $0.marker }) {
                let window = tail + chunk
                if Self.contains(window, marker) {
                    state.withLock { $0.marker = nil }
                    cutPending.pending.withLock { $0 = true }
                }
                tail = Array(window.suffix(marker.count))
            }
            if !watches, cutPending.pending.withLock({ $0 }) {
                state.withLock { $0.cuts += 1 }
                break
            }
            guard Self.writeAll(chunk, to: destination) else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    private static func writeAll(_ bytes: [UInt8], to socket: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private static func listen(on port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw FixtureError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.address("127.0.0.1", port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard bound, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            throw FixtureError("cannot listen on 127.0.0.1:\(port)")
        }
        return fd
    }

    private static func connect(to host: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw FixtureError("socket() failed") }
        var address = Self.address(host, port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            throw FixtureError("cannot connect to \(host):\(port)")
        }
        return fd
    }

    private static func address(_ host: String, _ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }

    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        private static let streamType = SOCK_STREAM
    #endif
}

/// Whether one forwarded connection is to be cut at the server's next bytes (shared by its two threads).
private final class CutFlag: Sendable {
    let pending = Mutex(false)
}
