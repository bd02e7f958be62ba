import CacheCore
import Foundation
import GraphQLCache
import RESTCache
import UnifiedCache

/// The facade's clears on a loaded session while many other sessions are live.
struct UnifiedSuite: BenchSuite {
    let help = """
        ucache-bench unified [--others N] [--repetitions N] [--json]

        A hub whose session holds 10,000 REST entries (spread over the twelve feature domains, tagged as the
        facade tags them) and the 2,100-entity GraphQL result of the graphql suite, while --others sessions
        (default 1,000) hold 10 REST entries and one account's records each. Timed: clearAllCaches() of the
        loaded session (REST scope, GraphQL scope, timestamps, cookie jar), refilled before each of
        --repetitions runs (default 20): p50 and max; then each feature clear (clearBalancesCache() …) on the
        refilled session: p50 over the repetitions. No network is involved; the stores are filled directly.
        """

    func run(options: BenchOptions) async throws -> BenchReport {
        let others = options.int("others", default: 1_000)
        let repetitions = options.int("repetitions", default: 20)
        let hub = try CacheHub(
            configuration: .init(restBaseURL: "http://127.0.0.1:9", graphQLEndpoint: "http://127.0.0.1:9/graphql")
                .withBankingPresets(),
            settings: try SettingsStore(settings: Self.roomySettings())
        )
        let document = try GraphQLParser.parse(BenchResponse.query).prepare(operationName: nil)
        let result = BenchResponse.generate(accounts: 100, transactions: 20)
        let small = BenchResponse.generate(accounts: 1, transactions: 2)
        for index in 0..<others {
            let session = hub.session(
                id: "other-\(index)", principal: VerifiedPrincipal("user-\(index)"), credentials: .none)
            fillREST(hub, scope: session.scope, count: 10)
            try GraphQLSuite.write(small, operation: document, into: hub.graphQLStore, scope: session.scope)
        }
        let loaded = hub.session(id: "loaded", principal: VerifiedPrincipal("loaded-user"), credentials: .none)
        func refill() throws {
            fillREST(hub, scope: loaded.scope, count: 10_000)
            try GraphQLSuite.write(result, operation: document, into: hub.graphQLStore, scope: loaded.scope)
        }

        var clearAll = Samples()
        var removed = (entries: 0, records: 0)
        for _ in 0..<repetitions {
            try refill()
            let begin = monotonicNanoseconds()
            let report = await loaded.cacheManager.clearAllCaches()
            clearAll.append(monotonicNanoseconds() - begin)
            removed = (report.entries, report.records)
            if ProcessInfo.processInfo.environment["UCACHE_BENCH_VERBOSE"] != nil {
                print(report.parts.map { "\($0.name)=\($0.duration)" }.joined(separator: " "), "total", report.duration)
            }
        }
        var rows = [
            BenchReport.Row(
                name: "clearAllCaches() (µs)",
                values: [
                    "p50": clearAll.percentile(0.5) / 1000, "max": clearAll.percentile(1.0) / 1000,
                    "entries": Double(removed.entries), "records": Double(removed.records),
                ])
        ]
        let features: [(String, @Sendable (DefaultUnifiedCacheManager) async -> UnifiedClearReport)] = [
            ("clearBalancesCache()", { await $0.clearBalancesCache() }),
            ("clearAccountSummaryCache()", { await $0.clearAccountSummaryCache() }),
            ("clearTransactionHistoryCache()", { await $0.clearTransactionHistoryCache() }),
            ("clearCardsExperienceCache()", { await $0.clearCardsExperienceCache() }),
            ("clearPayeesCache()", { await $0.clearPayeesCache() }),
            ("clearCache(forAccountId:)", { await $0.clearCache(forAccountId: "b001") }),
        ]
        for (name, clear) in features {
            var samples = Samples()
            var last = (entries: 0, records: 0, fields: 0)
            for _ in 0..<max(3, repetitions / 4) {
                _ = await loaded.cacheManager.clearAllCaches()
                try refill()
                let begin = monotonicNanoseconds()
                let report = await clear(loaded.cacheManager)
                samples.append(monotonicNanoseconds() - begin)
                last = (report.entries, report.records, report.fields)
            }
            rows.append(
                BenchReport.Row(
                    name: "\(name) (µs)",
                    values: [
                        "p50": samples.percentile(0.5) / 1000, "max": samples.percentile(1.0) / 1000,
                        "entries": Double(last.entries), "records": Double(last.records), "fields": Double(last.fields),
                    ]))
        }
        await hub.shutdown()
        return BenchReport(
            suite: "unified",
            machine: BenchReport.machineDescription,
            columns: ["p50", "max", "entries", "records", "fields"],
            rows: rows,
            notes: [
                "loaded session: 10,000 REST entries + 2,101 GraphQL records; \(others) other sessions live",
                "target: clearAllCaches() ≤ 1 ms and independent of the other sessions",
            ]
        )
    }

    private static func roomySettings() -> CacheSettings {
        var settings = CacheSettings.banking
        settings.memory.maxEntriesPerSession = 20_000
        settings.memory.processBudgetBytes = 4 << 30
        return settings
    }

    private static let domains = [
        "balances", "paymentList", "accountSummary", "transactionHistory", "cardsExperience", "payees",
        "scheduledPayments", "userProfile", "statements", "offers", "notifications", "featureFlags",
    ]

    private func fillREST(_ hub: CacheHub, scope: CacheScope, count: Int) {
        for index in 0..<count {
            let domain = Self.domains[index % Self.domains.count]
            let account = "b\(String(format: "%03d", index % 100 + 1))"
            hub.restStore.insert(
                index,
                byteCost: 256,
                key: "\(domain).item_\(index)",
                scope: scope,
                metadata: CacheEntryMetadata(timeout: .seconds(600), domains: [domain], accounts: [account])
            )
        }
    }
}
