import CacheCore
import CurlHTTP
import FixtureSupport
import Foundation
import RESTCache
import RedisReplication
import UnifiedCache

/// Two replicas in one process sharing a second level in a real redis-server on loopback.
struct SecondLevelSuite: BenchSuite {
    let help = """
        ucache-bench l2 [--reads N] [--sessions N] [--routes N] [--redis tls] [--cluster 1]

        Hubs A and B share a second level in a redis-server started on a free loopback port (TLS-only with
        --redis tls or UCACHE_BENCH_REDIS=tls; or UCACHE_REDIS_URL with UCACHE_REDIS_TLS_*),
        with the default 5 ms read deadline; the fixture server is the upstream. Timed, per read through
        APIService.performWithSource (--reads keys, default 2,000; each key is a fresh entry of one session):
        - L2 hit: B reads a key A fetched (B's memory has never seen it: a fresh key per read);
        - L1 hit: B reads the same key again;
        - upstream: a hub without a second level reads it (memory miss, fixture server over loopback HTTP);
        - the floors (not with --cluster): a bare GET of a value of the size A wrote, by the bench's own hiredis
          client, and the same client's GET of the answer's plain JSON decoded by JSONDecoder into the same type.
        GraphQL the same way over --graphql-reads sessions (default 500), each querying its accounts once on A:
        B's first query (L2 hit merged into the normalized store), B again (store hit), a hub without L2 (upstream).
        Then a cold replica's hit rate over a workload of --sessions (default 200) × --routes (default 20)
        entries, each read twice in a shuffled order, after replica A ran it once: a new hub with the second level
        vs a new hub without. Last, sealing alone: seal and open of a 1 KB and a 16 KB value, in µs per KB.
        With --cluster 1: a 3-primary Redis Cluster on loopback instead, and one more row: a new replica over the
        same workload after one primary was killed (hit rate, reads/s and hits/s; that shard's reads are misses).
        """

    struct FlagsRequest: RequestType {
        struct Flag: Decodable, Sendable { var name: String }
        typealias Response = [Flag]
        var key: String
        var path: String { "/api/feature-flags" }
        var cache: RequestCache? { RequestCache(key: key, timeout: .seconds(3_600)) }
    }

    func run(options: BenchOptions) async throws -> BenchReport {
        let reads = options.int("reads", default: 2_000)
        let sessions = options.int("sessions", default: 200)
        let routes = options.int("routes", default: 20)
        let graphQLReads = options.int("graphql-reads", default: 500)
        let tenant = try await FixtureServer.tenant("benchl2")
        let redis = try await BenchRedis.start(options: options)
        defer { redis.server?.terminate() }
        let cluster = redis.cluster
        let url = redis.configuration
        let prefix = "ucache-bench:l2:\(UUID().uuidString.prefix(8)):"
        let profiledHits = options.int("profile-hits", default: 0)
        // Under a profiler everything runs tens of times slower: a deadline that still lets every hit be a hit.
        // The caller's wait too, so that a reply that comes at once at full speed is still taken on the caller's thread.
        let deadline: Duration = profiledHits > 0 ? .seconds(5) : .milliseconds(5)
        let callerWait: Duration? = profiledHits > 0 ? deadline : nil
        let a = try Self.hub(tenant: tenant, url: url, prefix: prefix, deadline: deadline, callerWait: callerWait)
        let b = try Self.hub(tenant: tenant, url: url, prefix: prefix, deadline: deadline, callerWait: callerWait)
        let island = try Self.hub(tenant: tenant, url: nil, prefix: prefix)
        for hub in [a, b] { try await waitUntil { hub.secondLevelStatistics?.store.isConnected == true } }

        let user = (principal: VerifiedPrincipal("bench"), credentials: UpstreamCredentials.bearer("token-alice"))
        let onA = a.session(id: "bench-user", principal: user.principal, credentials: user.credentials)
        let onB = b.session(id: "bench-user", principal: user.principal, credentials: user.credentials)
        let onIsland = island.session(id: "bench-user", principal: user.principal, credentials: user.credentials)
        let keys = (0..<reads).map { "bench.l2.\($0)" }
        for key in keys { _ = try await Self.read(onA, key) }
        try await Self.settle(a)
        if profiledHits > 0 {
            return try await Self.profile(b: b, onB: onB, keys: keys.prefix(profiledHits), hubs: [a, b, island])
        }

        // The floor beside it: a GET of a value as large as those A wrote, by a bare client on the same transport.
        let valueBytes = a.secondLevelStatistics.map { $0.store.bytesWritten / max(1, $0.store.writes) } ?? 0
        let bare = try cluster == nil ? BareRedisClient(url) : nil
        let bareGet = BareRedisClient.format(["GET", "\(prefix)bare"])
        // And a plain Redis cache of the same answer: its JSON body as is, read and decoded into the same type.
        let bareJSONGet = BareRedisClient.format(["GET", "\(prefix)bare-json"])
        let decoder = JSONDecoder()
        if let bare {
            _ = try bare.command(["SET", "\(prefix)bare", String(repeating: "x", count: valueBytes)])
            let answer = try await CurlHTTPClient().execute(.init(url: "\(tenant.baseURL)/api/feature-flags"))
            _ = try bare.command(["SET", "\(prefix)bare-json", String(decoding: answer.body, as: UTF8.self)])
            for _ in 0..<100 {
                try bare.roundTrip(bareGet)
                _ = try decoder.decode(FlagsRequest.Response.self, from: bare.fetch(bareJSONGet))
            }
        }

        var secondLevelHits = Samples()
        var memoryHits = Samples()
        var upstream = Samples()
        var bareRoundTrips = Samples()
        var bareDecodedReads = Samples()
        var notServedFromL2 = 0
        for key in keys {
            var begin = monotonicNanoseconds()
            if try await Self.read(onB, key) != .cache { notServedFromL2 += 1 }
            secondLevelHits.append(monotonicNanoseconds() - begin)
            begin = monotonicNanoseconds()
            _ = try await Self.read(onB, key)
            memoryHits.append(monotonicNanoseconds() - begin)
            begin = monotonicNanoseconds()
            _ = try await Self.read(onIsland, key)
            upstream.append(monotonicNanoseconds() - begin)
            if let bare {
                // In turns: whichever floor comes first follows the upstream fetch, whose wake-ups slow it.
                for turn in bareRoundTrips.nanoseconds.count.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                    begin = monotonicNanoseconds()
                    if turn == 0 {
                        guard try bare.roundTrip(bareGet) == valueBytes else {
                            throw BenchError("the bare GET lost its value")
                        }
                        bareRoundTrips.append(monotonicNanoseconds() - begin)
                    } else {
                        let flags = try decoder.decode(FlagsRequest.Response.self, from: bare.fetch(bareJSONGet))
                        bareDecodedReads.append(monotonicNanoseconds() - begin)
                        guard !flags.isEmpty else { throw BenchError("the bare GET's answer decoded to nothing") }
                    }
                }
            }
        }

        let graphQL = try await Self.graphQLRows(a: a, b: b, island: island, sessions: graphQLReads)

        // A cold replica's first pass over a workload replica A has run.
        let workload = (0..<sessions).flatMap { session in (0..<routes).map { (session, "bench.route.\($0)") } }
        for (session, key) in workload {
            _ = try await Self.read(Self.session(a, session), key)
        }
        try await Self.settle(a)
        var generator = SystemRandomNumberGenerator()
        let order = (workload + workload).shuffled(using: &generator)
        let cold = try Self.hub(tenant: tenant, url: url, prefix: prefix)
        try await waitUntil { cold.secondLevelStatistics?.store.isConnected == true }
        let coldIsland = try Self.hub(tenant: tenant, url: nil, prefix: prefix)
        var rates: [Double] = []
        for hub in [cold, coldIsland] {
            var hits = 0
            for (session, key) in order where try await Self.read(Self.session(hub, session), key) == .cache {
                hits += 1
            }
            rates.append(Double(hits) / Double(order.count))
        }
        var shardDown: [BenchReport.Row] = []
        var shardNote: [String] = []
        if let cluster {
            // One primary killed: a new replica over the same workload; that shard's entries come from the upstream.
            // Not the node holding the fleet epoch: a replica that starts while that one is down has no L2.
            let epochOwner = cluster.ports.indices.first { index in
                !((try? cluster.cli(cluster.ports[index], "GET '\(prefix)e'")) ?? "MOVED").contains("MOVED")
            }
            let victim = cluster.ports.indices.last { $0 != epochOwner } ?? 2
            await cluster.kill(victim)
            let survivor = try Self.hub(tenant: tenant, url: url, prefix: prefix)
            try await waitUntil { survivor.secondLevelStatistics?.store.isConnected == true }
            var hits = 0
            let begin = monotonicNanoseconds()
            for (session, key) in order where try await Self.read(Self.session(survivor, session), key) == .cache {
                hits += 1
            }
            let seconds = Double(monotonicNanoseconds() - begin) / 1e9
            shardDown = [
                .init(
                    name: "cold replica, one of 3 shards killed",
                    values: [
                        "hit rate": Double(hits) / Double(order.count), "reads/s": Double(order.count) / seconds,
                        "hits/s": Double(hits) / seconds,
                    ])
            ]
            let survived = survivor.secondLevelStatistics?.store
            shardNote = [
                "Shard killed: node \(victim) of 3; the new replica's store: \(survived?.hits ?? 0) hits, "
                    + "\(survived?.errors ?? 0) errors (reads of that shard), \(survived?.timeouts ?? 0) timeouts."
            ]
            await survivor.shutdown()
            await cluster.stop()
        }
        let sealingRows = try Self.sealingRows()
        let statistics = b.secondLevelStatistics
        let fill = a.secondLevelStatistics
        for hub in [a, b, island, cold, coldIsland] { await hub.shutdown() }
        return BenchReport(
            suite: "l2",
            machine: BenchReport.machineDescription,
            columns: ["p50", "p99", "max", "hit rate"] + (cluster == nil ? [] : ["reads/s", "hits/s"]),
            rows: [
                Self.row("L2 hit: B reads what A fetched (µs)", secondLevelHits),
                Self.row("L1 hit (µs)", memoryHits),
                Self.row("upstream fetch, no L2 (µs)", upstream),
            ]
                + (bare == nil
                    ? []
                    : [
                        Self.row("bare Redis GET, same value size, same transport (µs)", bareRoundTrips),
                        Self.row(
                            "bare Redis GET of the answer's JSON + JSONDecoder into the same type (µs)",
                            bareDecodedReads),
                    ])
                + [
                    Self.row("GraphQL L2 hit, merged into the store (µs)", graphQL.secondLevel),
                    Self.row("GraphQL normalized-store hit (µs)", graphQL.memory),
                    Self.row("GraphQL upstream fetch, no L2 (µs)", graphQL.upstream),
                    .init(name: "cold replica, warm L2", values: ["hit rate": rates[0]]),
                    .init(name: "cold replica, no L2", values: ["hit rate": rates[1]]),
                ] + shardDown + sealingRows,
            notes: [
                "\(redis.note); read deadline 5 ms.",
                "\(notServedFromL2) of \(reads) L2 reads were not hits; B's store: \(statistics?.store.timeouts ?? 0) "
                    + "timeouts, \(statistics?.store.errors ?? 0) errors.",
                "Workload: \(sessions) sessions × \(routes) entries, each read twice, shuffled.",
                "A (filling L2): \(fill?.store.writes ?? 0) writes, \(fill?.store.droppedWrites ?? 0) dropped, "
                    + "\(fill?.store.timeouts ?? 0) read timeouts (nothing written for those).",
            ]
                + Self.ratioLines(
                    secondLevelHits, over: bareRoundTrips, decoded: bareDecodedReads, tls: url.tls != nil,
                    valueBytes: valueBytes)
                + shardNote
        )
    }

    /// The L2 hit against the bare round trip measured in the same loop, each on its own line.
    private static func ratioLines(
        _ hits: Samples, over bare: Samples, decoded: Samples, tls: Bool, valueBytes: Int
    ) -> [String] {
        guard bare.percentile(0.5) > 0, decoded.percentile(0.5) > 0 else { return [] }
        let transport = tls ? " over TLS" : ""
        func ratio(_ name: String, _ floor: Samples, _ quantile: Double) -> String {
            String(
                format: "L2 hit ÷ \(name)\(transport) (p\(Int(quantile * 100))): %.2f",
                hits.percentile(quantile) / floor.percentile(quantile))
        }
        return [
            "Bare round trip: GET of a \(valueBytes)-byte value (the size A wrote) by the bench's own client "
                + "(one blocking socket, hiredis reader), interleaved with the reads above. Bare decoded read: the same "
                + "client GETs the answer's plain JSON and decodes it with JSONDecoder into the answer's type, as a "
                + "hand-written Redis cache would (no sealing, no names, no generation, no memory).",
            ratio("bare round trip", bare, 0.5),
            ratio("bare round trip", bare, 0.99),
            ratio("bare decoded read", decoded, 0.5),
            ratio("bare decoded read", decoded, 0.99),
        ]
    }

    /// `--profile-hits N`: only N L2 hits on B after the fill, for a profiler (`valgrind --tool=callgrind`): two runs
    /// with the same `--reads` and a different N give the instructions of one hit (all threads) by difference.
    private static func profile(b: CacheHub, onB: CacheSession, keys: ArraySlice<String>, hubs: [CacheHub])
        async throws -> BenchReport
    {
        var samples = Samples()
        for key in keys {
            let begin = monotonicNanoseconds()
            guard try await read(onB, key) == .cache else { throw BenchError("a profiled read was not an L2 hit") }
            samples.append(monotonicNanoseconds() - begin)
        }
        for hub in hubs { await hub.shutdown() }
        return BenchReport(
            suite: "l2", machine: BenchReport.machineDescription, columns: ["p50", "p99", "max"],
            rows: [row("L2 hit, profiled (µs)", samples)], notes: ["\(keys.count) L2 hits only (--profile-hits)."])
    }

    private static let accounts = UntypedGraphQLOperation(
        document: "query BenchAccounts { accounts { id name balance } }", operationName: "BenchAccounts")

    /// B's first query of what A fetched, B again, and a hub without L2, over `sessions` sessions.
    private static func graphQLRows(a: CacheHub, b: CacheHub, island: CacheHub, sessions count: Int) async throws -> (
        secondLevel: Samples, memory: Samples, upstream: Samples
    ) {
        /// Sessions with their parts made, so the timings below are the queries' alone.
        func sessions(of hub: CacheHub) -> [CacheSession] {
            (0..<count).map { index in
                let session = hub.session(
                    id: "bench-graphql-\(index)", principal: VerifiedPrincipal("bench-graphql-\(index)"),
                    credentials: .bearer("token-alice"))
                _ = session.graphQL
                return session
            }
        }
        func query(_ session: CacheSession) async throws {
            guard case .success = await session.graphQL.fetch(operation: accounts) else {
                throw BenchError("a GraphQL query failed")
            }
        }
        for session in sessions(of: a) { try await query(session) }
        try await settle(a)
        let (onB, onIsland) = (sessions(of: b), sessions(of: island))
        var rows = (secondLevel: Samples(), memory: Samples(), upstream: Samples())
        for index in 0..<count {
            var begin = monotonicNanoseconds()
            try await query(onB[index])
            rows.secondLevel.append(monotonicNanoseconds() - begin)
            begin = monotonicNanoseconds()
            try await query(onB[index])
            rows.memory.append(monotonicNanoseconds() - begin)
            begin = monotonicNanoseconds()
            try await query(onIsland[index])
            rows.upstream.append(monotonicNanoseconds() - begin)
        }
        return rows
    }

    /// Sealing and opening alone (AES-256-GCM under the per-process key, associated data built per value), per KB
    /// of a 1 KB and a 16 KB value.
    private static func sealingRows() throws -> [BenchReport.Row] {
        let sealing = SecondLevelSealing(secret: try SecondLevelSecret((0..<32).map { UInt8($0) }))
        let binding = SecondLevelSealing.Binding(
            keyPrefix: "ucache:l2:", namespace: "bc9Xq0bXNNS1y0wAIwXRsg", kind: "rest", name: "Sb5HOBVEOXrXpSetPCq4YQ",
            generation: "0.0")
        var rows: [BenchReport.Row] = []
        for kilobytes in [1, 16] {
            let plaintext = [UInt8](repeating: 0x5A, count: kilobytes * 1024)
            var (seal, open) = (Samples(), Samples())
            for _ in 0..<5_000 {
                var begin = monotonicNanoseconds()
                let value = sealing.seal(plaintext, for: binding)
                seal.append(monotonicNanoseconds() - begin)
                begin = monotonicNanoseconds()
                guard case .success = sealing.open(value, for: binding) else {
                    throw BenchError("a value did not open")
                }
                open.append(monotonicNanoseconds() - begin)
            }
            for (name, samples) in [("seal", seal), ("open", open)] {
                let perKB = 1000 * Double(kilobytes)
                rows.append(
                    .init(
                        name: "\(name) a \(kilobytes) KB value (µs per KB)",
                        values: [
                            "p50": samples.percentile(0.5) / perKB, "p99": samples.percentile(0.99) / perKB,
                            "max": samples.percentile(1.0) / perKB,
                        ]))
            }
        }
        return rows
    }

    private static func row(_ name: String, _ samples: Samples) -> BenchReport.Row {
        .init(
            name: name,
            values: [
                "p50": samples.percentile(0.5) / 1000, "p99": samples.percentile(0.99) / 1000,
                "max": samples.percentile(1.0) / 1000,
            ])
    }

    static func read(_ session: CacheSession, _ key: String) async throws -> ResponseSource {
        guard case .success(let answer) = await session.rest.performWithSource(with: FlagsRequest(key: key)) else {
            throw BenchError("a read of \(key) failed")
        }
        return answer.source
    }

    private static func session(_ hub: CacheHub, _ index: Int) -> CacheSession {
        hub.session(
            id: "bench-session-\(index)", principal: VerifiedPrincipal("bench-\(index)"),
            credentials: .bearer("token-alice"))
    }

    /// Waits until `hub`'s store has answered a write (stored or dropped) for every read that missed: the answer
    /// to each was written back. (A read that timed out writes nothing.)
    static func settle(_ hub: CacheHub) async throws {
        try await waitUntil(timeout: .seconds(60)) {
            guard let store = hub.secondLevelStatistics?.store else { return false }
            return store.writes + store.droppedWrites >= store.misses
        }
    }

    static func hub(
        tenant: FixtureTenant, url: RedisReplicationConfiguration?, prefix: String,
        deadline: Duration = .milliseconds(5), callerWait: Duration? = nil
    ) throws -> CacheHub {
        var secondLevel: SecondLevelConfiguration?
        if let url {
            var redis = RedisSecondLevelConfiguration(connection: url)
            redis.keyPrefix = prefix
            if let callerWait { redis.callerWait = callerWait }
            secondLevel = SecondLevelConfiguration(
                store: RedisSecondLevelStore(configuration: redis),
                secret: try SecondLevelSecret(Array("bench-fleet-secret-0123456789-0123".utf8)))
            secondLevel?.readDeadline = deadline
        }
        return try CacheHub(
            configuration: .init(
                restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, secondLevel: secondLevel
            ).withBankingPresets(),
            settings: SettingsStore(settings: .banking))
    }
}
