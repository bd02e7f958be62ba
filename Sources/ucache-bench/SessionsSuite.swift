import CacheCore
import Foundation
import GraphQLCache
import GraphQLLanguage
import RESTCache
import UnifiedCache

/// The session lifecycle at BFF scale: what a session costs, how fast a live one is found, a million sessions
/// that never log out, and the budget reclaiming under pressure.
struct SessionsSuite: BenchSuite {
    let help = """
        ucache-bench sessions [--sessions N] [--idle N] [--used N] [--live N] [--lookups N] [--pressure N] [--json]

        No network: answers are inserted into the REST store as an upstream answer would be, then read back
        through the session's APIService (a typed cache hit). The hubs' clocks are ManualCacheClocks.
        1. Empty session: RSS before and after creating --idle (default 200,000) sessions that are never used;
           bytes per session, and what the budget is charged for each.
        1b. Used session: RSS before and after --used (default 100,000) live sessions, each with one cached REST
           read (session.rest, a typed hit) and one GraphQL answer (two records, written into the store and read
           back through session.graphQL, cache only): RSS per session, what the stores charge for the payload,
           RSS beyond the payload, and what the budget is charged for the session itself (SessionCharge), with
           its deviation from that RSS (target ≤ 20 %).
        1c. --live N (default 0, skipped): N live sessions (limits raised), one cached REST read each: RSS at the
           end (target for 1,000,000: ≤ 2 GiB).
        2. session(id:principal:credentials:) of a live session among those, with a bearer token, --lookups
           times (default 1,000,000), each timed: p50/p99 ns; once picking among all of them (every lookup misses
           the CPU caches) and once among 1,000 (a hot working set).
        3. Churn: --sessions (default 1,000,000) sessions, each making one cached REST read and never ended,
           idle timeout 60 s, the clock moved 1 s per 1,000 sessions and maintenance run every 10,000: sessions
           created per second, live sessions at the end, RSS at start, peak and end.
        4. Budget reclaim: 100,000 sessions with one entry each, then --pressure (default 500,000) requests
           (session(...) + a store lookup, insert on a miss) to random sessions among the 20,000 most recent:
           with room to spare, and with the budget at a quarter of what all of them need (full: every new
           session ends the least recent ones); then to random sessions among all 100,000 with the budget full
           (75% misses). Requests per second and the ratio (0 skips it).
        """

    private struct Small: Decodable, Sendable { var ok: Bool }

    private struct SmallRequest: RequestType {
        typealias Response = Small
        var path: String { "/api/feature-flags" }
        var cache: RequestCache? = RequestCache(key: "bench.small", timeout: .seconds(600))
    }

    func run(options: BenchOptions) async throws -> BenchReport {
        var rows: [BenchReport.Row] = []
        var notes: [String] = []
        let idle = options.int("idle", default: 200_000)
        let (emptyRow, hub, ids) = try emptySessions(count: idle)
        rows.append(emptyRow)
        let lookups = options.int("lookups", default: 1_000_000)
        rows.append(liveLookups(hub: hub, ids: ids, among: ids.count, count: lookups))
        rows.append(liveLookups(hub: hub, ids: ids, among: min(1_000, ids.count), count: lookups))
        await hub.shutdown()
        let used = options.int("used", default: 100_000)
        if used > 0 {
            let (row, note) = try await usedSessions(count: used)
            rows.append(row)
            notes.append(note)
        }
        let live = options.int("live", default: 0)
        if live > 0 {
            rows.append(try await liveSessions(count: live))
        }
        let churn = try await churn(count: options.int("sessions", default: 1_000_000))
        rows.append(churn)
        let pressure = options.int("pressure", default: 500_000)
        if pressure > 0 {
            let roomy = try budgetRun(sessions: 100_000, requests: pressure, budget: 8 << 30, hot: 20_000)
            let full = try budgetRun(sessions: 100_000, requests: pressure, budget: roomy.neededBytes / 4, hot: 20_000)
            let churning = try budgetRun(
                sessions: 100_000, requests: pressure, budget: roomy.neededBytes / 4, hot: 100_000)
            rows.append(roomy.row(name: "hits, room to spare (/s)"))
            rows.append(full.row(name: "hits, budget full (/s)"))
            rows.append(churning.row(name: "75% misses, budget full (/s)"))
            notes.append(
                "hits with the budget full ÷ with room to spare: "
                    + String(format: "%.2f", full.requestsPerSecond / roomy.requestsPerSecond)
                    + " (target ≥ 0.5); sessions ended for memory: \(full.endedForMemory) (hits), "
                    + "\(churning.endedForMemory) (misses)")
        }
        notes.append(
            "targets: session(…) p50 ≤ 200 ns; an idle empty session ≤ 1 KB; a used session ≤ 1.5 KB beyond its "
                + "payload; RSS bounded under churn; 1,000,000 live sessions ≤ 2 GiB")
        return BenchReport(
            suite: "sessions",
            machine: BenchReport.machineDescription,
            columns: ["p50", "p99", "per second", "bytes", "charged", "MiB start", "MiB peak", "MiB end", "live"],
            rows: rows,
            notes: notes
        )
    }

    private func hub(idleSeconds: Double = 1_800, maxSessions: Int = 10_000_000, budget: Int = 8 << 30) throws
        -> (CacheHub, ManualCacheClock)
    {
        let clock = ManualCacheClock()
        let settings = CacheSettings(
            memory: .init(processBudgetBytes: budget),
            sessions: .init(idleTimeoutSeconds: idleSeconds, maxSessions: maxSessions), domainMap: .banking)
        let hub = try CacheHub(
            configuration: .init(
                restBaseURL: "http://127.0.0.1:9", graphQLEndpoint: "http://127.0.0.1:9/graphql",
                maintenance: .init(interval: nil)
            ).withBankingPresets(),
            settings: try SettingsStore(settings: settings),
            clock: clock
        )
        return (hub, clock)
    }

    private func emptySessions(count: Int) throws -> (BenchReport.Row, CacheHub, [String]) {
        let (hub, _) = try hub()
        let ids = (0..<count).map { "session-\(UUID().uuidString)-\($0)" }
        let before = residentBytes()
        for (index, id) in ids.enumerated() {
            _ = hub.session(id: id, principal: VerifiedPrincipal("user-\(index)"), credentials: .none)
        }
        let after = residentBytes()
        let row = BenchReport.Row(
            name: "idle empty session (bytes)",
            values: [
                "bytes": Double(after - before) / Double(count),
                "MiB start": mebibytes(before), "MiB end": mebibytes(after), "live": Double(hub.sessionCount),
                "charged": Double(hub.budget.usedBytes) / Double(count),
            ])
        return (row, hub, ids)
    }

    private static let meDocument = "query Me { me { __typename id name } }"

    /// `count` live sessions, each with one cached REST read and one GraphQL answer read through its parts.
    private func usedSessions(count: Int) async throws -> (BenchReport.Row, String) {
        let (hub, _) = try hub()
        let operation = try GraphQLParser.parse(Self.meDocument).prepare(operationName: nil)
        let me = UntypedGraphQLOperation(document: Self.meDocument, operationName: "Me")
        let request = SmallRequest()
        let before = residentBytes()
        for index in 0..<count {
            let session = hub.session(
                id: "used-\(index)", principal: VerifiedPrincipal("user-\(index)"), credentials: .bearer("t-\(index)"))
            try await useBothHalves(session, hub: hub, operation: operation, me: me, request: request, index: index)
        }
        let after = residentBytes()
        let perSession = Double(after - before) / Double(count)
        let payload = Double(hub.statistics().bytes) / Double(count)
        let charge = SessionCharge.measured.total(rest: true, graphQL: true)
        let beyondPayload = perSession - payload
        let deviation = SessionCharge.deviation(ofCharge: charge, fromMeasured: Int(beyondPayload.rounded()))
        await hub.shutdown()
        let row = BenchReport.Row(
            name: "used session, RSS − payload (bytes)",
            values: [
                "bytes": beyondPayload, "charged": Double(charge), "MiB start": mebibytes(before),
                "MiB end": mebibytes(after), "live": Double(count),
            ])
        let note =
            "used session: \(Int(perSession)) B RSS each, \(Int(payload)) B of it payload (what the stores charge), "
            + "\(Int(beyondPayload)) B beyond it (target ≤ 1,536); charged \(charge) B for the session itself, "
            + String(format: "%.0f", deviation * 100) + " % from that RSS (target ≤ 20 %)"
        return (row, note)
    }

    private func useBothHalves(
        _ session: CacheSession, hub: CacheHub, operation: GraphQLPreparedOperation, me: UntypedGraphQLOperation,
        request: SmallRequest, index: Int
    ) async throws {
        hub.restStore.insert(Small(ok: true), byteCost: 64, key: "bench.small", scope: session.scope)
        guard case .success = await session.rest.perform(with: request) else {
            throw BenchError("a cached read missed")
        }
        let data: GraphQLJSONObject = [
            "me": ["__typename": "User", "id": .string("u-\(index)"), "name": "Ann"]
        ]
        guard case .written = try hub.graphQLStore.write(operation, data: data, in: session.scope) else {
            throw BenchError("the GraphQL write was refused")
        }
        guard case .success = await session.graphQL.fetch(operation: me, cachePolicy: .returnCacheDataDontFetch)
        else {
            throw BenchError("a cached GraphQL read missed")
        }
        // What a session that talked upstream holds besides: its cookie jar (made by its first upstream call) and
        // its GraphQL state (made by its first stored answer; here by a timestamp clear, without the timestamp).
        _ = session.cookieJar
        session.graphQL.clearTimestamps()
    }

    /// `count` live sessions with one cached REST read each, the limits raised to hold them all.
    private func liveSessions(count: Int) async throws -> BenchReport.Row {
        let (hub, _) = try hub(maxSessions: count + 1, budget: 64 << 30)
        let request = SmallRequest()
        let start = residentBytes()
        let began = monotonicNanoseconds()
        for index in 0..<count {
            let session = hub.session(
                id: "live-\(index)", principal: VerifiedPrincipal("user-\(index)"), credentials: .bearer("t-\(index)"))
            hub.restStore.insert(Small(ok: true), byteCost: 64, key: "bench.small", scope: session.scope)
            guard case .success = await session.rest.perform(with: request) else {
                throw BenchError("a cached read missed")
            }
            _ = session.cookieJar  // as its first upstream call would make it
        }
        let seconds = Double(monotonicNanoseconds() - began) / 1e9
        let end = residentBytes()
        let live = hub.sessionCount
        let charged = Double(hub.budget.usedBytes) / Double(count)
        await hub.shutdown()
        return BenchReport.Row(
            name: "\(count) live sessions, 1 read each",
            values: [
                "per second": Double(count) / seconds, "bytes": Double(end - start) / Double(count),
                "charged": charged, "MiB start": mebibytes(start), "MiB end": mebibytes(end), "live": Double(live),
            ])
    }

    /// Lookups of random live sessions among the first `among` ids (all of them: memory-bound, every lookup
    /// misses the CPU caches; a thousand: the working set of a busy moment stays in cache).
    private func liveLookups(hub: CacheHub, ids: [String], among: Int, count: Int) -> BenchReport.Row {
        let credentials = (0..<ids.count).map { _ in UpstreamCredentials.bearer("eyJhbGciOiJIUzI1NiJ9.bench") }
        let principals = (0..<ids.count).map { VerifiedPrincipal("user-\($0)") }
        var generator = SystemRandomNumberGenerator()
        let picks = (0..<min(count, 1 << 20)).map { _ in Int.random(in: 0..<among, using: &generator) }
        var samples = Samples()
        samples.reserve(count)
        for index in 0..<count {
            let pick = picks[index % picks.count]
            let begin = monotonicNanoseconds()
            let session = hub.session(id: ids[pick], principal: principals[pick], credentials: credentials[pick])
            samples.append(monotonicNanoseconds() - begin)
            withExtendedLifetime(session) {}
        }
        return BenchReport.Row(
            name: "session(…), 1 of \(among) live (ns)",
            values: ["p50": samples.percentile(0.5), "p99": samples.percentile(0.99), "live": Double(ids.count)])
    }

    private func churn(count: Int) async throws -> BenchReport.Row {
        let (hub, clock) = try hub(idleSeconds: 60)
        let start = residentBytes()
        var peak = start
        let began = monotonicNanoseconds()
        let request = SmallRequest()
        for index in 0..<count {
            let session = hub.session(
                id: "churn-\(index)", principal: VerifiedPrincipal("user-\(index)"), credentials: .bearer("t-\(index)"))
            hub.restStore.insert(Small(ok: true), byteCost: 64, key: "bench.small", scope: session.scope)
            guard case .success = await session.rest.perform(with: request) else {
                throw BenchError("a cached read missed")
            }
            if index % 1_000 == 999 { clock.advance(seconds: 1) }
            if index % 10_000 == 9_999 {
                await hub.runMaintenance()
                peak = max(peak, residentBytes())
            }
        }
        let seconds = Double(monotonicNanoseconds() - began) / 1e9
        await hub.runMaintenance()
        let end = residentBytes()
        let live = hub.sessionCount
        await hub.shutdown()
        return BenchReport.Row(
            name: "churn: \(count) sessions, 1 read each",
            values: [
                "per second": Double(count) / seconds, "MiB start": mebibytes(start), "MiB peak": mebibytes(peak),
                "MiB end": mebibytes(end), "live": Double(live),
            ])
    }

    private struct BudgetRun {
        var requestsPerSecond: Double
        var neededBytes: Int
        var endedForMemory: Int
        var live: Int

        func row(name: String) -> BenchReport.Row {
            BenchReport.Row(
                name: name,
                values: ["per second": requestsPerSecond, "bytes": Double(neededBytes), "live": Double(live)])
        }
    }

    /// `sessions` sessions with one entry each, then `requests` to random sessions among the `hot` most recent
    /// (all of them fit in a quarter of the budget when `hot` is a fifth; none of the rest is asked for again).
    private func budgetRun(sessions: Int, requests: Int, budget: Int, hot: Int) throws -> BudgetRun {
        let (hub, _) = try hub(budget: max(budget, 1 << 20))
        let value = Small(ok: true)
        func serve(_ index: Int) {
            let session = hub.session(id: "b-\(index)", principal: VerifiedPrincipal("u-\(index)"), credentials: .none)
            if case .miss = hub.restStore.lookup("bench.small", in: session.scope) {
                hub.restStore.insert(value, byteCost: 512, key: "bench.small", scope: session.scope)
            }
        }
        for index in 0..<sessions { serve(index) }
        let needed = hub.budget.usedBytes
        var generator = SystemRandomNumberGenerator()
        let picks = (0..<requests).map { _ in Int.random(in: (sessions - hot)..<sessions, using: &generator) }
        let began = monotonicNanoseconds()
        for pick in picks { serve(pick) }
        let seconds = Double(monotonicNanoseconds() - began) / 1e9
        let statistics = hub.sessionStatistics()
        return BudgetRun(
            requestsPerSecond: Double(requests) / seconds, neededBytes: needed,
            endedForMemory: statistics.ended(.memoryPressure), live: statistics.live)
    }

    private func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }
}

/// The process's resident set size, from /proc/self/statm (0 where there is none).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
