import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port nothing listens on, checked by binding it and closing it again.
///
/// The port is drawn below the kernel's ephemeral range (`ip_local_port_range`) when the system says what it is.
/// The kernel picks every outgoing connection's local port, and every `bind` to port 0, from that range. A server's
/// port taken from it could be given to a connection, or to another process's server, before the server bound it.
/// Worse, a test polling the port until it listens could connect to itself: a connection whose local port is the
/// port it dials. In one full run a cluster node's port answered as something other than its node.
///
/// The kernel may also hand a port it just freed out again, so two servers started at once by parallel tests could
/// be given the same one. A port is therefore handed out at most once per process.
public enum UnusedPort {
    private static let handedOut = Mutex<Set<Int>>([])

    /// Ports below the ephemeral range, from 10,000; nil when the range is unknown or starts too low to leave room.
    private static let quietPorts: ClosedRange<Int>? = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        guard let low = text.split(whereSeparator: \.isWhitespace).first.flatMap({ Int($0) }), low > 12_000 else {
            return nil
        }
        return 10_000...(low - 1)
    }()

    public static func find() throws -> Int {
        for _ in 0..<64 {
            let port: Int?
            if let quietPorts {
                port = try bindAndRelease(Int.random(in: quietPorts))
            } else {
                port = try bindAndRelease(0)
            }
            guard let port else { continue }  // in use: draw another
            let fresh = handedOut.withLock { $0.insert(port).inserted }
            if fresh { return port }
        }
        throw FixtureError("no unused loopback port after 64 tries")
    }

    /// Binds `requested` (0: any port the kernel picks) and returns the port bound; nil when it is in use.
    private static func bindAndRelease(_ requested: Int) throws -> Int? {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw FixtureError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(requested).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            if requested != 0 { return nil }
            throw FixtureError("bind() failed")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
