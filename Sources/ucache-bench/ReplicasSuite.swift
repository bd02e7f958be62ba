import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import RedisReplication
import UnifiedCache

/// Two replicas in one process over a real redis-server on loopback.
struct ReplicasSuite: BenchSuite {
    let help = """
        ucache-bench replicas [--clears N] [--hits N] [--redis tls] [--cluster 1] [--batch N] [--window-us N] [--json]

        Two hubs (replicas A and B) on one Redis channel: a redis-server started on a free loopback port (TLS-only
        with --redis tls or UCACHE_BENCH_REDIS=tls), or UCACHE_REDIS_URL (with UCACHE_REDIS_TLS_*). Timed:
        - cross-replica invalidation: A's clearBalancesCache() until B has applied it (B holds the entry), over
          --clears runs (default 2,000): p50, p99, max. B is watched by polling its counters with Task.yield().
        - the cost a clear adds on the replica that makes it: clearBalancesCache() on a session of 10 entries,
          on A (replicating) and on a hub without replication, alternately: p50 and p99 of each, first with B
          running in this process (applying every clear on the same cores), then with B stopped (as in a fleet,
          where B runs on another machine); a note gives replicating ÷ island (p50) for both.
        - REST cache hits on A through APIService (fixture server upstream, warmed): hits per second with Redis
          up, then killed (--hits each, default 100,000); hits never touch Redis, so they should match.
        With --cluster 1: a 3-primary Redis Cluster on loopback instead, A's link on node 0 and B's on node 1 (classic
        pub/sub crosses the cluster bus); added rows time one message from a PUBLISH on node 0 to a SUBSCRIBE on
        node 1, and from an SPUBLISH to an SSUBSCRIBE on the node that owns the channel's slot (--clears each);
        "Redis down" kills node 0 (A's link moves to another seed).
        With --batch N (clears per message at most; default 1, no batching) and --window-us (the batching window,
        default 0), A and B batch their clears.
        """

    private struct FlagsRequest: RequestType {
        struct Flag: Decodable, Sendable { var name: String }
        typealias Response = [Flag]
        var path: String { "/api/feature-flags" }
        var cache: RequestCache? = RequestCache(key: "featureFlags.bench", timeout: .never)
    }

    func run(options: BenchOptions) async throws -> BenchReport {
        let clears = options.int("clears", default: 2_000)
        let hits = options.int("hits", default: 100_000)
        let tenant = try await FixtureServer.tenant("benchreplicas")
        let redis = try await BenchRedis.start(options: options)
        let ownServer = redis.server
        let cluster = redis.cluster
        let url = redis.configuration
        let channel = "ucache-bench:\(UUID().uuidString.prefix(8))"
        let batching = (clears: options.int("batch", default: 1), window: options.int("window-us", default: 0))
        let a = try Self.hub(tenant: tenant, url: url, channel: channel, batching: batching)
        let b = try Self.hub(
            tenant: tenant,
            url: try cluster.map { try RedisReplicationConfiguration(url: Self.url($0, first: 1)) } ?? url,
            channel: channel, batching: batching)
        let island = try CacheHub(
            configuration: .init(restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL).withBankingPresets(),
            settings: SettingsStore(settings: .banking))
        for hub in [a, b] {
            try await waitUntil {
                hub.replicationStatistics?.linkState == .subscribed
                    && (hub.replicationStatistics?.gapsRecovered ?? 0) >= 1
            }
        }

        let onA = a.session(
            id: "bench-user", principal: VerifiedPrincipal("bench"), credentials: .bearer("token-bench"))
        let onB = b.session(
            id: "bench-user", principal: VerifiedPrincipal("bench"), credentials: .bearer("token-bench"))
        var latency = Samples()
        for run in 0..<clears {
            b.restStore.insert(run, byteCost: 64, key: "balances.bench", scope: onB.scope)
            let applied = b.replicationStatistics?.applied ?? 0
            let begin = monotonicNanoseconds()
            await onA.cacheManager.clearBalancesCache()
            while (b.replicationStatistics?.applied ?? 0) == applied { try await Task.sleep(for: .microseconds(20)) }
            latency.append(monotonicNanoseconds() - begin)
        }

        let local = island.session(
            id: "bench-user", principal: VerifiedPrincipal("bench"), credentials: .bearer("token-bench"))
        let withB = await Self.clearCost(a: a, onA: onA, island: island, local: local, clears: clears)
        // In a fleet, B applies A's clears on another machine; here it would share A's cores.
        await b.shutdown()
        let alone = await Self.clearCost(a: a, onA: onA, island: island, local: local, clears: clears)

        let probes = try cluster.map { try Self.pubSubRows($0, channel: channel + ":probe", count: clears) } ?? []
        let up = try await hitRate(onA, count: hits)
        var notes = [
            "replicating ÷ island clear (p50): B in this process " + Self.ratio(withB.replicated, withB.local)
                + ", B stopped " + Self.ratio(alone.replicated, alone.local) + ".",
            "\(redis.note), channel \(channel); "
                + (batching.clears > 1
                    ? "batching: at most \(batching.clears) clears a message, a \(batching.window) µs window."
                    : "no batching."),
        ]
        var down: Double?
        if let cluster {
            await cluster.kill(0)
            down = try await hitRate(onA, count: hits)
            await cluster.stop()
        } else if let ownServer {
            await ownServer.kill()
            try await waitUntil { a.replicationStatistics?.linkState.isUp == false }
            down = try await hitRate(onA, count: hits)
        } else {
            notes.append("Redis down not measured: the server is not ours to kill.")
        }
        await a.shutdown()
        await island.shutdown()
        return BenchReport(
            suite: "replicas",
            machine: BenchReport.machineDescription,
            columns: ["p50", "p99", "max", "per second"],
            rows: [
                .init(
                    name: "A clears → B applied (µs)",
                    values: [
                        "p50": latency.percentile(0.5) / 1000, "p99": latency.percentile(0.99) / 1000,
                        "max": latency.percentile(1.0) / 1000,
                    ]),
                Self.costRow("clearBalancesCache() replicating, B in this process (µs)", withB.replicated),
                Self.costRow("clearBalancesCache() island, B in this process (µs)", withB.local),
                Self.costRow("clearBalancesCache() replicating, B stopped (µs)", alone.replicated),
                Self.costRow("clearBalancesCache() island, B stopped (µs)", alone.local),
                .init(name: "REST hits, Redis up", values: ["per second": up]),
                .init(name: "REST hits, Redis down", values: down.map { ["per second": $0] } ?? [:]),
            ] + probes,
            notes: notes
        )
    }

    /// `clearBalancesCache()` of a 10-entry session on A (replicating) and on a hub without replication, alternately.
    private static func clearCost(
        a: CacheHub, onA: CacheSession, island: CacheHub, local: CacheSession, clears: Int
    ) async -> (replicated: Samples, local: Samples) {
        var replicatedCost = Samples()
        var localCost = Samples()
        for run in 0..<clears {
            for (hub, session) in [(a, onA), (island, local)] {
                for index in 0..<10 {
                    hub.restStore.insert(run, byteCost: 64, key: "balances.item_\(index)", scope: session.scope)
                }
            }
            var begin = monotonicNanoseconds()
            await onA.cacheManager.clearBalancesCache()
            replicatedCost.append(monotonicNanoseconds() - begin)
            begin = monotonicNanoseconds()
            await local.cacheManager.clearBalancesCache()
            localCost.append(monotonicNanoseconds() - begin)
        }
        return (replicatedCost, localCost)
    }

    /// `redis://…` listing every node of `cluster`, node `first` first.
    private static func url(_ cluster: RedisTestCluster, first: Int) -> String {
        let order = [first] + cluster.ports.indices.filter { $0 != first }
        return "redis://:\(cluster.password)@"
            + order.map { "\(cluster.host):\(cluster.ports[$0])" }.joined(separator: ",")
    }

    /// One message at a time: PUBLISH on node 0 → SUBSCRIBE on node 1, and SPUBLISH → SSUBSCRIBE on the channel's
    /// shard.
    private static func pubSubRows(_ cluster: RedisTestCluster, channel: String, count: Int) throws -> [BenchReport.Row]
    {
        let nodes = try cluster.ports.indices.map { try RedisReplicationConfiguration(url: cluster.url(ofNode: $0)) }
        let classic = try RedisPubSubProbe.latencies(
            publisher: nodes[0], subscriber: nodes[1], channel: channel, sharded: false, count: count)
        // Only the node that owns the channel's slot accepts SSUBSCRIBE (the others answer MOVED).
        guard
            let sharded = nodes.lazy.compactMap({ node in
                try? RedisPubSubProbe.latencies(
                    publisher: node, subscriber: node, channel: channel, sharded: true, count: count)
            }).first
        else { throw BenchError("no node accepted SSUBSCRIBE") }
        return [
            Self.durationRow("PUBLISH node 0 → SUBSCRIBE node 1 (µs)", classic),
            Self.durationRow("SPUBLISH → SSUBSCRIBE on the channel's shard (µs)", sharded),
        ]
    }

    private static func durationRow(_ name: String, _ durations: [Duration]) -> BenchReport.Row {
        var samples = Samples()
        for duration in durations {
            let (seconds, attoseconds) = duration.components
            samples.append(UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
        }
        return .init(
            name: name,
            values: [
                "p50": samples.percentile(0.5) / 1000, "p99": samples.percentile(0.99) / 1000,
                "max": samples.percentile(1.0) / 1000,
            ])
    }

    /// p50 of `replicated` ÷ p50 of `local`, two decimals.
    private static func ratio(_ replicated: Samples, _ local: Samples) -> String {
        String(format: "%.2f", replicated.percentile(0.5) / max(local.percentile(0.5), 1))
    }

    private static func costRow(_ name: String, _ samples: Samples) -> BenchReport.Row {
        .init(name: name, values: ["p50": samples.percentile(0.5) / 1000, "p99": samples.percentile(0.99) / 1000])
    }

    private static func hub(
        tenant: FixtureTenant, url: RedisReplicationConfiguration, channel: String, batching: (clears: Int, window: Int)
    ) throws -> CacheHub {
        var redis = url
        redis.channel = channel
        return try CacheHub(
            configuration: .init(
                restBaseURL: tenant.baseURL,
                graphQLEndpoint: tenant.graphqlURL,
                replication: ReplicationConfiguration(
                    transport: RedisReplicationTransport(configuration: redis),
                    secret: try ReplicationSecret(Array("bench-fleet-secret-0123456789-0123".utf8)),
                    maximumClearsPerMessage: batching.clears, batchingWindow: .microseconds(batching.window))
            ).withBankingPresets(),
            settings: SettingsStore(settings: .banking)
        )
    }

    private func hitRate(_ session: CacheSession, count: Int) async throws -> Double {
        guard case .success = await session.rest.perform(with: FlagsRequest()) else {
            throw BenchError("warm-up fetch failed")
        }
        let start = monotonicNanoseconds()
        for _ in 0..<count {
            guard case .success = await session.rest.perform(with: FlagsRequest()) else {
                throw BenchError("a hit failed")
            }
        }
        return Double(count) / (Double(monotonicNanoseconds() - start) / 1e9)
    }
}
