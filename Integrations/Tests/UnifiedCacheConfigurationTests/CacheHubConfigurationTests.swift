import Configuration
import IntegrationFixtures
import RedisReplication
import Testing
import UnifiedCache
import UnifiedCacheConfiguration

@Suite("CacheHub.Configuration from swift-configuration reads the library's keys from any provider")
struct CacheHubConfigurationTests {
    @Test("an in-memory provider gives the upstream, the GraphQL endpoint and a fleet over Redis")
    func inMemoryProvider() async throws {
        let configuration = try CacheHub.Configuration(
            config: memoryReader([
                "ucache.upstream.url": "http://127.0.0.1:9/bank/",
                "ucache.graphql.url": "http://127.0.0.1:9/gql",
                "ucache.redis.url": "redis://:\(Secrets.redisPassword)@127.0.0.1:1",
                "ucache.redis.channel": "bank:clears",
                "ucache.replication.secret": Secrets.fleet,
            ]))
        #expect(configuration.restBaseURL == "http://127.0.0.1:9/bank")
        #expect(configuration.graphQLEndpoint == "http://127.0.0.1:9/gql")
        let transport = try #require(configuration.replication?.transport as? RedisReplicationTransport)
        #expect(transport.configuration.channel == "bank:clears")
        #expect(transport.configuration.password == Secrets.redisPassword)
        #expect(transport.configuration.port == 1)
        let store = try #require(configuration.secondLevel?.store as? RedisSecondLevelStore)
        #expect(store.configuration.connection.password == Secrets.redisPassword)
        await store.shutdown()
    }

    @Test("without a Redis URL the hub stays alone; the GraphQL endpoint defaults to the upstream's /graphql")
    func singleReplica() throws {
        let configuration = try CacheHub.Configuration(config: memoryReader(["ucache.upstream.url": "http://a:1"]))
        #expect(configuration.graphQLEndpoint == "http://a:1/graphql")
        #expect(configuration.replication == nil)
        #expect(configuration.secondLevel == nil)
    }

    @Test("the environment provider reads UCACHE_* as the environment readers do, and the hub reaches Redis")
    func environmentProvider() async throws {
        let tenant = try await FixtureServer.tenant("config-env")
        let redisURL = try await RedisTestServer.sharedURL()
        var variables = [
            "UCACHE_UPSTREAM_URL": tenant.baseURL,
            "UCACHE_REDIS_URL": redisURL,
            "UCACHE_REPLICATION_SECRET": Secrets.fleet,
            "UCACHE_L2_SECRET": Secrets.secondLevel,
        ]
        if !redisURL.contains("@") { variables["UCACHE_REDIS_ALLOW_NO_AUTH"] = "1" }
        let configuration = try CacheHub.Configuration(config: environmentReader(variables))
        #expect(configuration.restBaseURL == tenant.baseURL)
        #expect(configuration.graphQLEndpoint == tenant.graphqlURL)
        let fromEnvironment = try #require(try RedisReplicationConfiguration(environment: variables))
        let transport = try #require(configuration.replication?.transport as? RedisReplicationTransport)
        #expect(transport.configuration.description == fromEnvironment.description)
        let hub = try CacheHub(configuration: configuration, settings: SettingsStore())
        try await waitUntil { hub.secondLevelStatistics?.store.isConnected == true }
        await hub.shutdown()
    }
}

@Suite("A malformed configuration is a typed error naming the key, never the value")
struct CacheHubConfigurationFailureTests {
    private func error(_ values: [String: String]) throws -> CacheConfigurationError {
        do throws(CacheConfigurationError) {
            let configuration = try CacheHub.Configuration(config: memoryReader(values))
            Issue.record("expected an error, got a configuration for \(configuration.restBaseURL)")
            throw CacheConfigurationError(code: .missingValue, key: "none", message: "no error")
        } catch {
            return error
        }
    }

    @Test("a Redis URL that does not parse names redis.url and does not repeat the password")
    func malformedRedisURL() throws {
        let failure = try error([
            "ucache.upstream.url": "http://a:1",
            "ucache.redis.url": "http://user:\(Secrets.redisPassword)@127.0.0.1:6379",
            "ucache.replication.secret": Secrets.fleet,
        ])
        #expect(failure.code == .invalidValue)
        #expect(failure.key == "redis.url")
        #expect(!String(describing: failure).contains(Secrets.redisPassword))
    }

    @Test("a fleet secret too short names replication.secret and does not repeat it")
    func shortSecret() throws {
        let failure = try error([
            "ucache.upstream.url": "http://a:1",
            "ucache.redis.url": "redis://:\(Secrets.redisPassword)@127.0.0.1:1",
            "ucache.replication.secret": "short-secret-xyz",
        ])
        #expect(failure.code == .invalidValue)
        #expect(failure.key == "replication.secret")
        #expect(!String(describing: failure).contains("short-secret-xyz"))
        #expect(!String(describing: failure).contains(Secrets.redisPassword))
    }

    @Test("a Redis URL without the fleet secret is inconsistent; no upstream URL is missing")
    func missingValues() throws {
        let withoutSecret = try error([
            "ucache.upstream.url": "http://a:1", "ucache.redis.url": "redis://:\(Secrets.redisPassword)@127.0.0.1:1",
        ])
        #expect(withoutSecret.code == .inconsistent)
        #expect(withoutSecret.key == "replication.secret")
        let withoutUpstream = try error([:])
        #expect(withoutUpstream.code == .missingValue)
        #expect(withoutUpstream.key == "upstream.url")
    }

    @Test("TLS settings for a plaintext Redis URL name the TLS key")
    func tlsForPlaintext() throws {
        let failure = try error([
            "ucache.upstream.url": "http://a:1",
            "ucache.redis.url": "redis://:\(Secrets.redisPassword)@127.0.0.1:1",
            "ucache.redis.tls.caFile": "/etc/ssl/ca.pem",
            "ucache.replication.secret": Secrets.fleet,
        ])
        #expect(failure.key.hasPrefix("redis.tls."))
        #expect(!failure.message.contains("UCACHE_"))
        #expect(!String(describing: failure).contains(Secrets.redisPassword))
    }
}

@Suite("Secrets are read as secrets: the reader's access log redacts them")
struct ConfigurationRedactionTests {
    @Test("the Redis URL and the secrets never appear in the access log; the upstream URL does")
    func secretsAreRedacted() async throws {
        let reporter = RecordingAccessReporter()
        let configuration = try CacheHub.Configuration(
            config: memoryReader(
                [
                    "ucache.upstream.url": "http://127.0.0.1:9/visible-upstream",
                    "ucache.redis.url": "redis://:\(Secrets.redisPassword)@127.0.0.1:1",
                    "ucache.replication.secret": Secrets.fleet,
                    "ucache.l2.secret": Secrets.secondLevel,
                ], reporter: reporter))
        let log = reporter.rendered.joined(separator: "\n")
        // The log is real and shows values that are not secret: the check below would see a leaked one.
        #expect(log.contains("visible-upstream"))
        #expect(log.contains("REDACTED"))
        for secret in [Secrets.redisPassword, Secrets.fleet, Secrets.secondLevel] {
            #expect(!log.contains(secret))
        }
        await (configuration.secondLevel?.store as? RedisSecondLevelStore)?.shutdown()
    }
}
