import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication

#if canImport(Glibc)
    import Glibc
#endif

/// TLS contexts are made once per settings and version of their files: reconnects do not read the CA file again,
/// and a file changed on disk is read by the next connection.
@Suite("Redis TLS contexts: the CA file is read once, and again only when it changes")
struct RedisTLSContextTests {
    /// Copies `source` over `path` and moves its modification time `seconds` ahead, so the change is seen even
    /// within one tick of the file system's clock.
    private func replace(_ path: String, with source: String, movedAhead seconds: Int) throws {
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: source, toPath: path)
        let moved = timespec(tv_sec: time(nil) + seconds, tv_nsec: 0)
        var times = [moved, moved]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test("three connections with one setting read the CA file once; a rotated CA file takes effect at the next")
    func contextIsSharedUntilTheFileChanges() async throws {
        let redis = try await TLSRedis()
        defer { redis.server.terminate() }
        let certificates = redis.certificates
        let caFile = NSTemporaryDirectory() + "ucache-ca-\(UUID().uuidString.prefix(8)).pem"
        try FileManager.default.copyItem(atPath: certificates.caFile, toPath: caFile)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let configuration = try redis.configuration { $0.caFile = caFile }

        for _ in 0..<3 { #expect(connectionError(configuration) == nil) }
        #expect(RedisTLSContexts.madeCount(caFile: caFile) == 1)

        // Rotated to a CA that did not sign the server's certificate: the next connection reads it and is refused.
        try replace(caFile, with: certificates.unknownCAFile, movedAhead: 5)
        #expect(connectionError(configuration)?.code == .tlsCertificateUntrusted)
        #expect(RedisTLSContexts.madeCount(caFile: caFile) == 2)

        // Rotated back: trusted again, from a third reading.
        try replace(caFile, with: certificates.caFile, movedAhead: 10)
        #expect(connectionError(configuration) == nil)
        #expect(connectionError(configuration) == nil)
        #expect(RedisTLSContexts.madeCount(caFile: caFile) == 3)
    }

    @Test("a CA file that cannot be read fails each connection with a configuration error, and is never cached")
    func unreadableFileIsNotCached() async throws {
        let redis = try await TLSRedis()
        defer { redis.server.terminate() }
        let certificates = redis.certificates
        let caFile = NSTemporaryDirectory() + "ucache-missing-ca-\(UUID().uuidString.prefix(8)).pem"
        let configuration = try redis.configuration { $0.caFile = caFile }
        #expect(connectionError(configuration)?.code == .tlsConfigurationInvalid)
        #expect(RedisTLSContexts.madeCount(caFile: caFile) == 0)
        try FileManager.default.copyItem(atPath: certificates.caFile, toPath: caFile)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        #expect(connectionError(configuration) == nil)
        #expect(RedisTLSContexts.madeCount(caFile: caFile) == 1)
    }
}
