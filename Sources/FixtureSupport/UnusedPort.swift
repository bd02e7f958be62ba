import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port nothing listens on: bound to port 0, read back, then closed.
///
/// The kernel may hand a port it just freed out again, so two servers started at once by parallel tests could be
/// given the same one, and one test would then talk to the other's server. A port is therefore handed out at most
/// once per process.
public enum UnusedPort {
    private static let handedOut = Mutex<Set<Int>>([])

    public static func find() throws -> Int {
        for _ in 0..<64 {
            let port = try bindAndRelease()
            let fresh = handedOut.withLock { $0.insert(port).inserted }
            if fresh { return port }
        }
        throw FixtureError("no unused loopback port after 64 tries")
    }

    private static func bindAndRelease() throws -> Int {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw FixtureError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw FixtureError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
