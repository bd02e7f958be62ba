import Testing

@testable import RedisReplication

@Suite("Redis Cluster configuration: seeds from the URL, UCACHE_REDIS_CLUSTER, typed errors")
struct RedisTopologyConfigurationTests {
    @Test("a URL listing several hosts is a cluster whose seeds are those hosts, the first one connected first")
    func severalHostsAreACluster() throws {
        let configuration = try RedisReplicationConfiguration(url: "redis://:secret@10.0.0.1:7000,10.0.0.2,node-c:7002")
        let seeds = [
            RedisNodeAddress(host: "10.0.0.1", port: 7000), RedisNodeAddress(host: "10.0.0.2", port: 6379),
            RedisNodeAddress(host: "node-c", port: 7002),
        ]
        #expect(configuration.topology == .cluster(seeds: seeds))
        #expect(configuration.host == "10.0.0.1" && configuration.port == 7000)
        #expect(configuration.seeds == seeds)
        #expect(configuration.password == "secret")
        #expect(try RedisReplicationConfiguration(url: "redis://:secret@10.0.0.1:7000").topology == .standalone)
    }

    @Test("UCACHE_REDIS_CLUSTER=1 makes a one-host URL a cluster seed; 0 or unset leaves it one server")
    func clusterFlag() throws {
        let url = "redis://:secret@redis-cluster:7000"
        let flagged = try #require(
            try RedisReplicationConfiguration(environment: ["UCACHE_REDIS_URL": url, "UCACHE_REDIS_CLUSTER": "1"]))
        #expect(flagged.topology == .cluster(seeds: [RedisNodeAddress(host: "redis-cluster", port: 7000)]))
        for value in ["0", ""] {
            let plain = try #require(
                try RedisReplicationConfiguration(environment: ["UCACHE_REDIS_URL": url, "UCACHE_REDIS_CLUSTER": value])
            )
            #expect(plain.topology == .standalone)
        }
        #expect(try RedisSecondLevelConfiguration(url: "redis://:s@a:1,b:2").connection.topology.isCluster)
    }

    @Test("a bad cluster flag, an empty host or a bad port among the seeds is a typed error without the password")
    func badSeeds() {
        for url in [
            "redis://:hunter2@a:7000,", "redis://:hunter2@a:7000,b:x", "redis://:hunter2@a:7000,:7001",
            "redis://:hunter2@a:70000,b:1",
        ] {
            #expect(throws: RedisReplicationError.self) { try RedisReplicationConfiguration(url: url) }
            do {
                _ = try RedisReplicationConfiguration(url: url)
            } catch {
                #expect(error.code == .invalidURL)
                #expect(!error.description.contains("hunter2"))
            }
        }
        do {
            _ = try RedisReplicationConfiguration(
                environment: ["UCACHE_REDIS_URL": "redis://:hunter2@a:1", "UCACHE_REDIS_CLUSTER": "yes"])
            Issue.record("UCACHE_REDIS_CLUSTER=yes was accepted")
        } catch {
            #expect(error.code == .invalidURL)
            #expect(error.description.contains("UCACHE_REDIS_CLUSTER"))
        }
    }

    @Test("MOVED and ASK redirections and a CLUSTER SLOTS reply are read; anything else is not a redirection")
    func redirections() {
        #expect(
            RedisClusterRedirect(.error("MOVED 3999 127.0.0.1:6381"), fallbackHost: "x")
                == .moved(slot: 3999, to: RedisNodeAddress(host: "127.0.0.1", port: 6381)))
        #expect(
            RedisClusterRedirect(.error("ASK 12 :7000"), fallbackHost: "seed")
                == .ask(slot: 12, to: RedisNodeAddress(host: "seed", port: 7000)))
        for reply: RedisReply in [
            .error("MOVED 16384 a:1"), .error("MOVED 1 a:0"), .error("ERR unknown"), .error("ASK 1"), .status("OK"),
        ] {
            #expect(RedisClusterRedirect(reply, fallbackHost: "x") == nil)
        }
        let slots = RedisReply.array([
            .array([.integer(0), .integer(99), .array([.string(Array("".utf8)), .integer(7000), .string([])])]),
            .array([.integer(100), .integer(16383), .array([.string(Array("10.0.0.2".utf8)), .integer(7001)])]),
        ])
        let map = RedisClusterMap(slots: slots, fallbackHost: "seed")
        #expect(map?[5] == RedisNodeAddress(host: "seed", port: 7000))
        #expect(map?[16383] == RedisNodeAddress(host: "10.0.0.2", port: 7001))
        #expect(
            RedisClusterMap(slots: .array([.array([.integer(5), .integer(2), .array([])])]), fallbackHost: "") == nil)
        #expect(
            RedisClusterMap(
                slots: .array([.array([.integer(0), .integer(20_000), .array([.string([]), .integer(1)])])]),
                fallbackHost: "") == nil)
    }
}
