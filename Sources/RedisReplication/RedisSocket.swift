import CHiredis
import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The byte stream to one Redis server: a non-blocking TCP socket (TCP_NODELAY), optionally TLS over it. Owned by
/// one thread at a time. The protocol above it (formatting, parsing) is hiredis's, in ``RedisConnection``.
final class RedisSocket {
    let fileDescriptor: Int32
    private let tls: RedisTLSSession?

    /// Connects to `host:port` within `connectTimeout` (every address the name resolves to, in order), then, with
    /// `tls`, completes the handshake within its own timeout.
    init(host: String, port: Int, connectTimeout: Duration, tls: RedisReplicationConfiguration.TLS?)
        throws(RedisReplicationError)
    {
        let fd = try Self.openTCP(host: host, port: port, timeout: connectTimeout)
        fileDescriptor = fd
        do {
            self.tls = try tls.map { settings throws(RedisReplicationError) in
                try RedisTLSSession(fileDescriptor: fd, host: host, settings: settings)
            }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit {
        tls?.close()
        close(fileDescriptor)
    }

    /// Whether bytes already read from the socket wait to be returned (TLS records decrypted but not yet taken), so
    /// a poll() on the descriptor alone would not report them.
    var hasBufferedInput: Bool { tls?.hasBufferedInput ?? false }

    /// Writes what the socket takes now; returns the count (0 when it takes nothing now). With TLS the same bytes
    /// must be offered again after a 0 (they are, from the connection's output buffer).
    func write(_ bytes: UnsafeRawBufferPointer) throws(RedisReplicationError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        if let tls { return try tls.write(bytes) }
        while true {
            let written = send(fileDescriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if written >= 0 { return written }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw RedisReplicationError(.connectionLost, "Writing to Redis failed.", underlying: Self.systemError())
        }
    }

    /// Reads what the socket holds now into `buffer`; nil when nothing is there yet. Throws when the server closed
    /// the connection or it failed.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RedisReplicationError) -> Int? {
        if let tls { return try tls.read(into: buffer) }
        while true {
            let got = recv(fileDescriptor, buffer.baseAddress, buffer.count, 0)
            if got > 0 { return got }
            if got == 0 { throw RedisReplicationError(.connectionLost, "Redis closed the connection.") }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw RedisReplicationError(.connectionLost, "Reading from Redis failed.", underlying: Self.systemError())
        }
    }

    /// Waits until the descriptor is readable (or closed) or `deadline` passes, to the microsecond where the system
    /// allows it (a reply on loopback takes tens of µs: poll()'s milliseconds would round a short wait up to one).
    static func waitReadable(_ fd: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let now = ContinuousClock.now
            guard deadline > now else { return false }
            let ready = uch_wait_readable(fd, (deadline - now).nanoseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // let the next call report the failure
        }
    }

    /// Waits until the descriptor is ready for `events` or `deadline` passes; false on timeout.
    static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let now = ContinuousClock.now
            guard deadline > now else { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32((deadline - now).milliseconds))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // let the next call report the failure
        }
    }

    static func systemError() -> String { String(cString: strerror(errno)) }

    private static func openTCP(host: String, port: Int, timeout: Duration) throws(RedisReplicationError) -> Int32 {
        let deadline = ContinuousClock.now + timeout
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw RedisReplicationError(
                .connectFailed, "Could not resolve the Redis host \(host).",
                underlying: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var failure = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let info = current.pointee
            let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                failure = systemError()
                continue
            }
            let flags = fcntl(fd, F_GETFL)
            guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
                failure = systemError()
                close(fd)
                continue
            }
            if connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else {
                    failure = systemError()
                    close(fd)
                    continue
                }
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else {
                    close(fd)
                    throw RedisReplicationError(
                        .connectFailed, "Could not connect to Redis at \(host):\(port) within \(timeout).")
                }
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0, code == 0 else {
                    failure = String(cString: strerror(code))
                    close(fd)
                    continue
                }
            }
            var on: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        throw RedisReplicationError(
            .connectFailed, "Could not connect to Redis at \(host):\(port).", underlying: failure)
    }
}
