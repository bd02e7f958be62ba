import CacheCore
import Foundation
import GraphQLCache
import RESTCache
import Synchronization

@testable import UnifiedCache

/// A real hub whose second level answers every read with the fuzz input: the whole read path runs (the front's
/// lookup, the codec, the REST service's or GraphQL client's use of the entry, memory), not only the codec.
///
/// The upstream is a closed loopback port, so whatever the second level does not serve fails fast as a network
/// error. One hub per target for the process (libFuzzer runs inputs one after another; the regression tests run the
/// targets side by side); each run ends its session, so every run starts with empty memory.
final class SecondLevelFuzzHarness: Sendable {
    static let rest = SecondLevelFuzzHarness(kind: .rest)
    static let graphQL = SecondLevelFuzzHarness(kind: .graphQL)
    /// The wall clock every entry is judged on; seeds are stored at this time.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name balance } }", operationName: "AccountSummary")

    let store: FuzzSecondLevelStore
    let hub: CacheHub

    private init(kind: SecondLevelNames.Kind) {
        store = FuzzSecondLevelStore(kind: kind)
        do {
            hub = try CacheHub(
                configuration: .init(
                    restBaseURL: "http://127.0.0.1:1",
                    graphQLEndpoint: "http://127.0.0.1:1/graphql",
                    maintenance: .init(interval: nil),
                    secondLevel: SecondLevelConfiguration(
                        store: store, secret: try SecondLevelSecret(FuzzPayload.secret), readDeadline: .seconds(60))
                ).withBankingPresets(),
                settings: try SettingsStore(settings: .banking),
                clock: ManualCacheClock(date: Self.now)
            )
        } catch {
            fatalError("The fuzz harness's hub did not start: \(error)")
        }
    }

    private func session(_ id: String) -> CacheSession {
        hub.session(id: id, principal: VerifiedPrincipal("fuzz-user"), credentials: .bearer("fuzz-token"))
    }

    /// A cache-only read (memory is empty: the second level answers it, or nothing does — the same read path a
    /// cache-first read takes before its upstream call, without the call), then, when the second level served it,
    /// another one that memory must answer with the same body.
    func runREST(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        if let entry = SecondLevelEntryCodec.decode(input) {
            let encoded = SecondLevelEntryCodec.encode(entry)
            violations.expect(encoded == input, "the REST value decodes but re-encodes to other bytes: \(encoded)")
        }
        store.plaintext = input
        let outcome = waitFor { [self] in
            let session = session("fuzz-rest")
            var served: Data?
            var fromMemory: Data?
            let first = await session.rest.performWithSource(with: FuzzRESTRead(policy: .cacheOnly))
            if case .success(let answer) = first, answer.source == .cache {
                served = answer.data
                let again = await session.rest.performWithSource(with: FuzzRESTRead(policy: .cacheOnly))
                fromMemory = try? again.get().data
            }
            _ = await hub.endSession(id: "fuzz-rest")
            return (served, fromMemory)
        }
        if let served = outcome.0 {
            violations.expect(outcome.1 != nil, "the second level served a value that memory then did not")
            violations.expect(outcome.1 == nil || outcome.1 == served, "memory served another body")
        }
        return violations.list
    }

    /// A cache-first query (served from the second level or failed upstream), then, when the second level served
    /// it, a cache-only query that the normalized store must answer.
    func runGraphQL(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        if let entry = SecondLevelEntryCodec.decodeGraphQL(input) {
            let encoded = SecondLevelEntryCodec.encode(entry)
            violations.expect(encoded == input, "the GraphQL value decodes but re-encodes to other bytes: \(encoded)")
        }
        store.plaintext = input
        let (served, fromStore) = waitFor { [self] in
            let session = session("fuzz-graphql")
            let first = await session.graphQL.fetch(operation: Self.summary)
            var served = false
            var fromStore: Bool?
            if case .success(let result) = first, result.source == .cache {
                served = true
                let again = await session.graphQL.fetch(operation: Self.summary, cachePolicy: .returnCacheDataDontFetch)
                fromStore = (try? again.get()) != nil
            }
            _ = await hub.endSession(id: "fuzz-graphql")
            return (served, fromStore)
        }
        if served {
            violations.expect(fromStore == true, "the second level served a result the store then could not answer")
        }
        return violations.list
    }

    // MARK: Seeds

    static func restSeeds() -> [(name: String, bytes: [UInt8])] {
        let body = Data(#"{"accounts":[{"id":"1","name":"Everyday","balance":12.5}]}"#.utf8)
        var fresh = CacheEntryMetadata(timeout: .seconds(600))
        fresh.domains = ["accountSummary"]
        fresh.accounts = ["1", "2"]
        var validated = CacheEntryMetadata(timeout: .seconds(60))
        validated.validators = CacheValidators(etag: "\"v1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        var tagged = CacheEntryMetadata(timeout: .never)
        tagged.entityKeys = ["Account:1"]
        tagged.tags = ["path:/api/accounts"]
        var uplifted = CacheEntryMetadata(timeout: .seconds(300))
        uplifted.isUplifted = true
        let entries: [(String, RESTSecondLevelEntry)] = [
            ("fresh", .init(status: 200, body: body, storedAt: now, expiresAt: now + 600, metadata: fresh)),
            (
                "stale-with-validators",
                .init(status: 200, body: body, storedAt: now - 120, expiresAt: now - 60, metadata: validated)
            ),
            ("never-expires", .init(status: 200, body: body, storedAt: now, expiresAt: nil, metadata: tagged)),
            (
                "uplifted",
                .init(status: 203, body: Data("[]".utf8), storedAt: now, expiresAt: now + 300, metadata: uplifted)
            ),
            ("empty-body", .init(status: 204, body: Data(), storedAt: now, expiresAt: now + 1, metadata: fresh)),
            ("not-ok", .init(status: 404, body: body, storedAt: now, expiresAt: now + 600, metadata: fresh)),
        ]
        return entries.map { ($0.0, SecondLevelEntryCodec.encode($0.1)) }
    }

    static func graphQLSeeds() -> [(name: String, bytes: [UInt8])] {
        let data = Array(
            #"{"accounts":[{"__typename":"Account","id":"1","name":"Everyday","balance":12.5},{"__typename":"Account","id":"2","name":"Savings","balance":-3}]}"#
                .utf8)
        let entries: [(String, GraphQLSecondLevelEntry)] = [
            ("fresh", .init(data: data, storedAt: now, expiresAt: now + 300)),
            ("never-expires", .init(data: data, storedAt: now, expiresAt: nil)),
            ("expired", .init(data: data, storedAt: now - 600, expiresAt: now - 300)),
            ("empty-list", .init(data: Array(#"{"accounts":[]}"#.utf8), storedAt: now, expiresAt: now + 300)),
            ("null-data", .init(data: Array("null".utf8), storedAt: now, expiresAt: now + 300)),
        ]
        return entries.map { ($0.0, SecondLevelEntryCodec.encode($0.1)) }
    }
}

/// A REST read of one fixed key; its body is kept as bytes (any body is usable).
struct FuzzRESTRead: RequestType {
    typealias Response = Data
    var policy: RESTCachePolicy
    var path: String { "/api/fuzz" }
    var cachePolicy: RESTCachePolicy { policy }
    var cache: RequestCache? { RequestCache(key: "fuzz.entry", timeout: .seconds(600)) }
}

/// The fuzz harness's second level: every read is a hit with the current input (as ``FuzzPayload`` makes it), writes
/// and clears are accepted and forgotten. Not a stand-in for Redis in a behaviour test: it feeds bytes to the hub.
final class FuzzSecondLevelStore: SecondLevelStore {
    private let current = Mutex<[UInt8]>([])
    /// The kind of entry this harness reads: values are sealed for it.
    let kind: SecondLevelNames.Kind

    init(kind: SecondLevelNames.Kind) {
        self.kind = kind
    }

    var keyPrefix: String { FuzzPayload.keyPrefix }
    var maximumValueBytes: Int { 1 << 24 }

    var plaintext: [UInt8] {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    func read(_ key: SecondLevelKey, deadline: Duration) async -> SecondLevelRead {
        .hit(FuzzPayload.secondLevelValue(plaintext, for: key, kind: kind), generation: FuzzPayload.generation)
    }

    func write(
        _ value: [UInt8], for key: SecondLevelKey, generation: SecondLevelGeneration, timeToLive: Duration,
        tags: [SecondLevelTag]
    ) {}

    func clearNamespace(_ namespace: SecondLevelNamespace) async {}
    func clearTags(_ tags: [SecondLevelTag], in namespace: SecondLevelNamespace) async {}
    func clearAll() async {}

    func statistics() -> SecondLevelStatistics {
        var statistics = SecondLevelStatistics()
        statistics.isConnected = true
        return statistics
    }

    func shutdown() async {}
}
