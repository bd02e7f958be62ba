import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import UnifiedCache
import UnifiedCacheHummingbird

/// `GET /dashboard`'s encoded answer, kept per session in the session's value door, so a dashboard whose inputs
/// have not changed is answered with the bytes composed last time: no REST or GraphQL read, no join, no JSON encoding.
///
/// What keeps it right:
/// - It lives in the session's scope: another session never reads it, and logout (which ends the session on every
///   replica) drops it with everything else of the session.
/// - It is tagged ``tag``, a value tag of the `balances` and `accountSummary` domains (see
///   `CacheSettings.withDashboardTag()`): a clear of either domain, here or replicated, drops it; a payment through the BFF
///   clears the tag (on every replica) once the mutation has changed the balances.
/// - It lives ``BFFConfiguration/dashboardMemo`` (5 s by default): the bound on how much longer than its inputs'
///   own freshness a composed dashboard may be served. It stays in this replica's memory (never the second level:
///   the inputs are there already).
/// - Only a composition from fresh inputs (cached hits, fetched or revalidated answers) is kept: one served stale
///   (fail-safe, soft timeout) or that started an eager refresh is answered once and composed again next time.
/// - `Cache-Status`: a memo hit says `ucache-l1; hit`; the request that composed it says what its reads did, and a
///   request that waited for another's composition says what that composition's reads did.
struct DashboardMemo: Codable, Sendable {
    /// The value door's key and tag of the memo.
    static let key = "dashboard"
    static let tag = "dashboard"
    /// ``tag`` as the value door takes it (made once: a set literal would be hashed again on every request).
    static let tags: Set<String> = [tag]

    /// The encoded `Dashboard`, as `JSONEncoder` writes it for a `ResponseEncodable`.
    var body: ByteBuffer
    /// What the composition's reads did (the least cached of them).
    var status: CacheStatus
    /// Which composition this was (``compositions`` when it began): a request that began before it waited for it.
    var sequence: UInt64

    /// Compositions begun in this process.
    static let compositions = Atomic<UInt64>(0)

    private enum CodingKeys: String, CodingKey {
        case body, status, sequence
    }

    init(body: ByteBuffer, status: CacheStatus, sequence: UInt64) {
        self.body = body
        self.status = status
        self.sequence = sequence
    }

    // The value door encodes a stored value once, to charge its bytes to the memory budget (the body as base64).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        body = ByteBuffer(bytes: try container.decode(Data.self, forKey: .body))
        let raw = try container.decode(Int.self, forKey: .status)
        guard let status = CacheStatus(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "unknown status")
        }
        self.status = status
        sequence = try container.decode(UInt64.self, forKey: .sequence)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Data(body.readableBytesView), forKey: .body)
        try container.encode(status.rawValue, forKey: .status)
        try container.encode(sequence, forKey: .sequence)
    }
}

/// A composition that must not be kept (an input was stale, or started an eager refresh): thrown out of the value
/// door's factory so nothing is stored, caught by the requests that waited for it, which answer its body.
struct UnkeptDashboard: Error {
    var memo: DashboardMemo
    var reason: CacheStaleReason?
}

/// The dashboard's answer through the memo: the session's memo when there is one, else a composition (shared by
/// the session's concurrent requests) kept for `lifetime`.
func memoizedDashboard(_ cache: CacheRequestState, lifetime: Duration) async throws -> Response {
    let session = try cache.requireSession()
    let began = DashboardMemo.compositions.load(ordering: .relaxed)
    let memo: DashboardMemo
    let reason: CacheStaleReason?
    do {
        memo = try await session.values.value(
            forKey: DashboardMemo.key, tags: DashboardMemo.tags,
            options: ValueCacheOptions(duration: lifetime, secondLevel: .skipped)
        ) {
            try await composeDashboard(session)
        }
        reason = nil
    } catch let unkept as UnkeptDashboard {
        (memo, reason) = (unkept.memo, unkept.reason)
    } catch let error as UnifiedCacheError {
        // The session ended while this request held it (a logout in parallel), as its reads would have answered.
        throw HTTPError(.badGateway, message: "upstream failed (\(error.code))")
    }
    if let recorder = CacheStatusRecorder.current {
        // A memo composed before this request began is a hit; one composed since (for this request, or for another
        // this one waited for) says what its reads did.
        let composedSince = memo.sequence >= began
        recorder.record(composedSince ? memo.status : .hit, reason: composedSince ? reason : nil)
    }
    return Response(status: .ok, headers: dashboardHeaders, body: ResponseBody(byteBuffer: memo.body))
}

/// The headers of every memoized dashboard (made once).
let dashboardHeaders: HTTPFields = [.contentType: "application/json; charset=utf-8"]

/// Reads the account list and the balances (concurrently), joins and encodes them; throws ``UnkeptDashboard``
/// carrying the answer when an input was not fresh.
private func composeDashboard(_ session: CacheSession) async throws -> DashboardMemo {
    let sequence = DashboardMemo.compositions.add(1, ordering: .relaxed).oldValue
    let request = AccountSummaryRequest(cachePolicy: .cacheFirst)
    async let accounts = upstream { try await session.rest.responseWithSource(for: request) }
    async let balances = upstream { try await session.graphQL.result(for: AccountBalancesQuery()) }
    let (accountAnswer, balanceResult) = try await (accounts, balances)
    let dashboard = Dashboard(
        user: session.principal.subject, accounts: accountAnswer.data, balances: balanceResult.data.accounts)
    let body = ByteBuffer(bytes: try JSONEncoder().encode(dashboard))
    // The least cached read decides, as the request's Cache-Status recorder would have it.
    var (status, reason) = (CacheStatus(accountAnswer, method: request.method), accountAnswer.staleReason)
    let graphQLStatus = CacheStatus(balanceResult)
    if graphQLStatus > status {
        (status, reason) = (graphQLStatus, balanceResult.staleReason)
    } else if graphQLStatus == status, reason == nil {
        reason = balanceResult.staleReason
    }
    let memo = DashboardMemo(body: body, status: status, sequence: sequence)
    guard status != .stale, status != .bypassed, reason == nil else {
        throw UnkeptDashboard(memo: memo, reason: reason)
    }
    return memo
}

/// Whether the composed dashboard can be kept as this BFF keeps it: the value door applies the hub's resilience
/// options and those of the domains naming a value's tag to the value itself, and fail-safe or a soft timeout would
/// answer an earlier composition that `Cache-Status` could not tell from a kept one. With any of them set, every
/// dashboard is composed from its reads (whose own resilience then decides, and says so).
func keepsComposedDashboard(_ hub: CacheHub) -> Bool {
    let domains = hub.settings.current.domainResilience
    return !hub.configuration.resilience.isEnabled
        && [CacheDomain.Name.balances, .accountSummary].allSatisfy { domains[$0]?.isEnabled != true }
}

extension CacheSettings {
    /// These settings with the memo's tag in the domains the dashboard reads (`balances`, `accountSummary`), so a
    /// clear of either drops the session's memo too.
    func withDashboardTag() -> CacheSettings {
        var settings = self
        for name in [CacheDomain.Name.balances, .accountSummary] where settings.domainMap.names.contains(name) {
            // A valid tag on a known name: the domain cannot be invalid.
            if let tagged = try? CacheDomain(name: name, valueTags: [DashboardMemo.tag]) {
                settings.domainMap.merge(tagged)
            }
        }
        return settings
    }
}
