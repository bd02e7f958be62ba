import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS-only redis-server with the test CA's certificate, and a configuration trusting that CA.
struct TLSRedis {
    let server: RedisTestServer
    let certificates: TestCertificates

    init(expired: Bool = false, requiresClientCertificate: Bool = false) async throws {
        certificates = try await TestCertificates.shared()
        server = try await RedisTestServer.start(
            tls: RedisTestServer.TLSSettings(
                certificateFile: expired
                    ? certificates.expiredServerCertificateFile : certificates.serverCertificateFile,
                keyFile: certificates.serverKeyFile, caFile: certificates.caFile,
                requiresClientCertificate: requiresClientCertificate))
    }

    /// `rediss://` to the server, trusting the test CA, on its own channel.
    func configuration(_ adjust: (inout RedisReplicationConfiguration.TLS) -> Void = { _ in }) throws
        -> RedisReplicationConfiguration
    {
        var configuration = try redisConfiguration(url: server.url, channel: uniqueChannel("tls"))
        var tls = try #require(configuration.tls)
        tls.caFile = certificates.caFile
        adjust(&tls)
        configuration.tls = tls
        return configuration
    }
}

/// The error making a connection throws, if any.
func connectionError(_ configuration: RedisReplicationConfiguration) -> RedisReplicationError? {
    do {
        let connection = try RedisConnection(configuration)
        _ = try connection.command([Array("PING".utf8)])
        return nil
    } catch {
        return error
    }
}

@Suite("Redis over TLS: verified by default, and refused with a typed error when it cannot be trusted")
struct RedisTLSTests {
    @Test("a rediss:// URL turns TLS on with both verifications, and TLS settings need a rediss:// URL")
    func urlAndEnvironment() throws {
        let plain = try RedisReplicationConfiguration(url: "redis://:pw@10.0.0.7")
        #expect(plain.tls == nil)
        let secure = try RedisReplicationConfiguration(url: "rediss://fleet:pw@redis.internal:6380")
        let tls = try #require(secure.tls)
        #expect(tls.verifiesCertificate && tls.verifiesHostName && tls.caFile == nil && tls.serverName == nil)
        #expect(secure.description == "rediss://fleet@redis.internal:6380 channel ucache:clears")

        let environment = [
            "UCACHE_REDIS_URL": "rediss://:pw@10.0.0.7:6380", "UCACHE_REDIS_TLS_CA_FILE": "/etc/ca.pem",
            "UCACHE_REDIS_TLS_CA_DIRECTORY": "/etc/cas", "UCACHE_REDIS_TLS_CERT_FILE": "/etc/client.pem",
            "UCACHE_REDIS_TLS_KEY_FILE": "/etc/client.key", "UCACHE_REDIS_TLS_SERVER_NAME": "redis.internal",
        ]
        let parsed = try #require(try RedisReplicationConfiguration(environment: environment)?.tls)
        #expect(
            parsed
                == RedisReplicationConfiguration.TLS(
                    caFile: "/etc/ca.pem", caDirectory: "/etc/cas", certificateFile: "/etc/client.pem",
                    keyFile: "/etc/client.key", serverName: "redis.internal"))
        let store = try #require(try RedisSecondLevelConfiguration(environment: environment))
        #expect(store.connection.tls == parsed)
        #expect(store.description == "rediss://***@10.0.0.7:6380 prefix ucache:l2:")

        var plainWithTLS = environment
        plainWithTLS["UCACHE_REDIS_URL"] = "redis://:pw@10.0.0.7:6380"
        #expect(throws: RedisReplicationError.self) { try RedisReplicationConfiguration(environment: plainWithTLS) }
        var keyless = environment
        keyless["UCACHE_REDIS_TLS_KEY_FILE"] = nil
        do {
            _ = try RedisReplicationConfiguration(environment: keyless)
            Issue.record("a certificate without a key was accepted")
        } catch {
            #expect(error.code == .tlsConfigurationInvalid)
        }
    }

    @Test("clears reach the other replica and the second level reads and writes over verified TLS")
    func replicationAndSecondLevelOverTLS() async throws {
        let redis = try await TLSRedis()
        defer { redis.server.terminate() }
        let configuration = try redis.configuration()
        let (sender, receiver) = (RecordingReceiver(), RecordingReceiver())
        let publishing = RedisReplicationTransport(configuration: configuration)
        let subscribing = RedisReplicationTransport(configuration: configuration)
        publishing.start(receiver: sender)
        subscribing.start(receiver: receiver)
        try await waitUntil { sender.isSubscribed && receiver.isSubscribed }
        publishing.publish([1, 2, 3, 0, 255])
        try await waitUntil { receiver.payloads.contains([1, 2, 3, 0, 255]) }
        await publishing.shutdown()
        await subscribing.shutdown()

        var storeConfiguration = try secondLevelConfiguration(url: redis.server.url, label: "tls")
        storeConfiguration.connection.tls = configuration.tls
        let store = try await connectedStore(storeConfiguration)
        let entry = key("session-a", "entry-1")
        let value = [UInt8](repeating: 0x42, count: 40_000)  // several TLS records
        try await writeAndSettle(store, value, for: entry, generation: initialGeneration)
        #expect(await store.read(entry, deadline: patientDeadline) == .hit(value, generation: initialGeneration))
        await store.shutdown()
    }

    @Test("a certificate that does not name the server is refused as a host name mismatch")
    func hostNameMismatch() async throws {
        let redis = try await TLSRedis()
        defer { redis.server.terminate() }
        let error = connectionError(try redis.configuration { $0.serverName = "redis.example.com" })
        #expect(error?.code == .tlsHostNameMismatch)
        #expect(error?.description.contains(redis.server.password ?? "-") == false)
        // The certificate names localhost and 127.0.0.1: both verify.
        #expect(connectionError(try redis.configuration { $0.serverName = "localhost" }) == nil)
        #expect(connectionError(try redis.configuration()) == nil)
    }

    @Test("a server certificate from a CA not trusted is refused as untrusted")
    func unknownAuthority() async throws {
        let redis = try await TLSRedis()
        defer { redis.server.terminate() }
        let error = connectionError(try redis.configuration { $0.caFile = redis.certificates.unknownCAFile })
        #expect(error?.code == .tlsCertificateUntrusted)
        // Without a CA the system store is used, which does not know the test CA either.
        #expect(connectionError(try redis.configuration { $0.caFile = nil })?.code == .tlsCertificateUntrusted)
    }

    @Test("an expired server certificate is refused as expired")
    func expiredCertificate() async throws {
        let redis = try await TLSRedis(expired: true)
        defer { redis.server.terminate() }
        #expect(connectionError(try redis.configuration())?.code == .tlsCertificateExpired)
    }

    @Test("a server requiring client certificates accepts ours and refuses a client without one")
    func mutualTLS() async throws {
        let redis = try await TLSRedis(requiresClientCertificate: true)
        defer { redis.server.terminate() }
        let withCertificate = try redis.configuration {
            $0.certificateFile = redis.certificates.clientCertificateFile
            $0.keyFile = redis.certificates.clientKeyFile
        }
        #expect(connectionError(withCertificate) == nil)
        let refused = connectionError(try redis.configuration())
        #expect(refused?.code == .tlsFailed, "\(String(describing: refused))")
    }

    @Test("an unreadable key or a key that is not the certificate's is a configuration error that shows no key")
    func badIdentityFiles() async throws {
        let redis = try await TLSRedis(requiresClientCertificate: true)
        defer { redis.server.terminate() }
        let missing = connectionError(
            try redis.configuration {
                $0.certificateFile = redis.certificates.clientCertificateFile
                $0.keyFile = redis.certificates.directory + "/no-such.key"
            })
        #expect(missing?.code == .tlsConfigurationInvalid)
        let mismatched = connectionError(
            try redis.configuration {
                $0.certificateFile = redis.certificates.clientCertificateFile
                $0.keyFile = redis.certificates.serverKeyFile
            })
        #expect(mismatched?.code == .tlsConfigurationInvalid)
        let keyText = try String(contentsOfFile: redis.certificates.serverKeyFile, encoding: .utf8)
        let keyBody = keyText.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        #expect(mismatched?.description.contains(keyBody) == false)
        let badCA = connectionError(try redis.configuration { $0.caFile = redis.certificates.directory + "/none.pem" })
        #expect(badCA?.code == .tlsConfigurationInvalid)
    }

    @Test("a server that accepts TCP and never speaks TLS times the handshake out")
    func handshakeTimeout() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        var settings = try RedisReplicationConfiguration(url: "rediss://:pw@127.0.0.1:\(listener.port)")
        settings.tls?.handshakeTimeout = .milliseconds(200)
        let configuration = settings
        let error = try await offThePool { connectionError(configuration) }
        #expect(error?.code == .tlsHandshakeTimedOut)
    }

    @Test("TLS to a plaintext Redis (which waits for a command line that never comes) ends at the handshake timeout")
    func tlsToPlaintext() async throws {
        let server = try await RedisTestServer.start()
        defer { server.terminate() }
        var settings = try RedisReplicationConfiguration(
            url: server.url.replacingOccurrences(of: "redis://", with: "rediss://"))
        settings.tls?.handshakeTimeout = .milliseconds(300)
        let configuration = settings
        let error = try await offThePool { connectionError(configuration) }
        #expect(error?.code == .tlsHandshakeTimedOut)
    }
}

/// A loopback TCP listener that never accepts: the kernel completes the TCP handshake, nothing answers.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw FixtureError("could not listen on loopback") }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
