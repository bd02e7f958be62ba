import CacheCore
import CurlHTTP
import Foundation
import Synchronization

/// Who a bearer token belongs to, as an upstream endpoint says, asked once per token and remembered.
///
/// Every BFF in front of an upstream that issues opaque tokens needs this before it can ask the hub for a session:
/// the session must be bound to the user the upstream vouches for (``VerifiedPrincipal``), never to an id the client
/// sent. A verifier sends `GET` ``Configuration/url`` with the token as `Authorization: Bearer …` and takes the
/// subject from a field of the JSON answer; a 401 or 403 rejects the token.
///
/// - Asked once: the verdict is remembered (``Configuration/acceptedFor``, ``Configuration/rejectedFor``, on the
///   injected clock), and concurrent verifications of one token share one upstream call.
/// - Bounded: at ``Configuration/maximumVerdicts`` remembered tokens, expired verdicts go first, then every settled
///   one, so a flood of made-up tokens cannot grow it; past as many verifications in flight it refuses more.
/// - Forgotten at logout: ``forget(token:)`` drops the verdict (and the answer of a call still in flight), so the next
///   request with that token asks the upstream again.
///
/// An upstream that cannot answer (unreachable, 5xx, an unreadable body) is not remembered. A deployment that
/// verifies JWT signatures locally has no need of it.
public final class UpstreamTokenVerifier: Sendable {
    /// Where to ask and how long to remember.
    public struct Configuration: Sendable {
        /// The endpoint that answers 2xx with the token owner's JSON, 401 or 403 otherwise (a profile or
        /// userinfo route).
        public var url: String
        /// The top-level field of the answer holding the subject (a string or an integer).
        public var subjectField: String
        /// How long an accepted token is believed without asking again.
        public var acceptedFor: Duration
        /// How long a rejected token is refused without asking again (a client retrying a bad token costs one call).
        public var rejectedFor: Duration
        /// The most tokens remembered (and the most verifications in flight) at once.
        public var maximumVerdicts: Int

        public init(
            url: String, subjectField: String = "id", acceptedFor: Duration = .seconds(300),
            rejectedFor: Duration = .seconds(30), maximumVerdicts: Int = 10_000
        ) {
            self.url = url
            self.subjectField = subjectField
            self.acceptedFor = acceptedFor
            self.rejectedFor = rejectedFor
            self.maximumVerdicts = max(1, maximumVerdicts)
        }
    }

    private typealias Asking = Task<Result<Verdict, UnifiedCacheError>, Never>

    private enum Verdict: Sendable {
        case accepted(VerifiedPrincipal)
        case rejected
    }

    private enum Slot: Sendable {
        /// A call is in flight; `number` tells it from a later call for the same token after a forget.
        case asking(number: UInt64, task: Asking)
        case known(Verdict, until: CacheInstant)
    }

    /// What a verification found under the lock.
    private enum Lookup {
        case known(Verdict)
        case asking(Asking)
        case refused(UnifiedCacheError)
    }

    private struct State: Sendable {
        var slots: [String: Slot] = [:]
        var asking = 0
        var nextNumber: UInt64 = 0
    }

    private let configuration: Configuration
    private let client: CurlHTTPClient
    private let clock: any CacheClock
    private let state = Mutex(State())
    private let calls = Atomic<Int>(0)

    /// - Parameters:
    ///   - configuration: which endpoint to ask, where the user id is in its answer, and how long verdicts last.
    ///   - client: the HTTP client the calls go through (the hub's `client`, say).
    ///   - clock: decides when a verdict expires; a `ManualCacheClock` in tests.
    public init(configuration: Configuration, client: CurlHTTPClient, clock: any CacheClock = SystemCacheClock()) {
        self.configuration = configuration
        self.client = client
        self.clock = clock
    }

    /// The principal of an `Authorization` header value (`Bearer <token>`); a missing or other scheme is rejected.
    public func principal(authorization: String?) async throws(UnifiedCacheError) -> VerifiedPrincipal {
        guard let token = Self.bearerToken(authorization) else {
            throw UnifiedCacheError(code: .tokenRejected, message: "No bearer token was presented.")
        }
        return try await principal(token: token)
    }

    /// The principal the upstream says `token` belongs to, from memory when a verdict is remembered.
    public func principal(token: String) async throws(UnifiedCacheError) -> VerifiedPrincipal {
        guard Self.isPlausible(token) else {
            throw UnifiedCacheError(code: .tokenRejected, message: "The bearer token is malformed.")
        }
        let now = clock.now()
        let found: Lookup = state.withLock { state in
            switch state.slots[token] {
            case .known(let verdict, let until) where now < until: return .known(verdict)
            case .asking(_, let task): return .asking(task)
            case .known, nil: return startAsking(token, in: &state, now: now)
            }
        }
        let verdict: Verdict
        switch found {
        case .known(let known): verdict = known
        case .asking(let task): verdict = try await task.value.get()
        case .refused(let error): throw error
        }
        switch verdict {
        case .accepted(let principal): return principal
        case .rejected: throw UnifiedCacheError(code: .tokenRejected, message: "The upstream rejected the token.")
        }
    }

    /// Forgets what is known of `token` (at logout): the next verification asks the upstream, and a call in flight
    /// for it answers its waiters but leaves nothing behind.
    public func forget(token: String) {
        state.withLock { state in
            if case .asking = state.slots.removeValue(forKey: token) { state.asking -= 1 }
        }
    }

    /// How many tokens have a remembered verdict or a call in flight.
    public var rememberedCount: Int { state.withLock { $0.slots.count } }

    /// How many upstream calls the verifier has made.
    public var upstreamCalls: Int { calls.load(ordering: .relaxed) }

    /// The token of a `Bearer` header value (the scheme is case-insensitive, blanks around the token ignored), nil
    /// for anything else.
    public static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let utf8 = authorization.utf8
        let scheme = "bearer".utf8
        guard utf8.count > scheme.count, zip(utf8, scheme).allSatisfy({ $0 | 0x20 == $1 }),
            utf8.dropFirst(scheme.count).first == UInt8(ascii: " ")
        else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let rest = utf8.dropFirst(scheme.count)
        guard let start = rest.firstIndex(where: { !isBlank($0) }), let end = rest.lastIndex(where: { !isBlank($0) })
        else { return nil }
        return String(decoding: rest[start...end], as: UTF8.self)
    }

    // MARK: Asking

    /// Visible ASCII only and of a sane length: nothing else can be a bearer token (RFC 6750's `b64token` is a
    /// subset), and nothing else is sent upstream in a header.
    private static func isPlausible(_ token: String) -> Bool {
        let utf8 = token.utf8
        return !utf8.isEmpty && utf8.count <= 8192 && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    private func startAsking(
        _ token: String, in state: inout State, now: CacheInstant
    ) -> Lookup {
        if state.slots.count >= configuration.maximumVerdicts {
            state.slots = state.slots.filter { _, slot in
                if case .known(_, let until) = slot { return now < until }
                return true
            }
        }
        if state.slots.count >= configuration.maximumVerdicts {
            state.slots = state.slots.filter { _, slot in
                if case .asking = slot { return true }
                return false
            }
        }
        guard state.asking < configuration.maximumVerdicts else {
            return .refused(
                UnifiedCacheError(
                    code: .tokenVerificationUnavailable, message: "Too many token verifications are in flight."))
        }
        let number = state.nextNumber
        state.nextNumber += 1
        state.asking += 1
        let task = Asking {
            let result = await self.ask(token)
            self.settle(token, number: number, result)
            return result
        }
        state.slots[token] = .asking(number: number, task: task)
        return .asking(task)
    }

    /// Keeps the verdict of call `number`, unless the token was forgotten (or asked again) meanwhile.
    private func settle(_ token: String, number: UInt64, _ result: Result<Verdict, UnifiedCacheError>) {
        let now = clock.now()
        state.withLock { state in
            guard case .asking(let current, _) = state.slots[token], current == number else { return }
            state.asking -= 1
            switch result {
            case .success(.accepted(let principal)):
                state.slots[token] = .known(.accepted(principal), until: now.advanced(by: configuration.acceptedFor))
            case .success(.rejected):
                state.slots[token] = .known(.rejected, until: now.advanced(by: configuration.rejectedFor))
            case .failure:
                state.slots[token] = nil
            }
        }
    }

    private func ask(_ token: String) async -> Result<Verdict, UnifiedCacheError> {
        calls.add(1, ordering: .relaxed)
        let request = CurlHTTPClient.Request(url: configuration.url, headers: ["Authorization": "Bearer \(token)"])
        let response: CurlHTTPClient.Response
        do {
            response = try await client.execute(request)
        } catch {
            return .failure(
                UnifiedCacheError(
                    code: .tokenVerificationUnavailable, message: "The token verification endpoint did not answer.",
                    underlying: error))
        }
        if response.status == 401 || response.status == 403 { return .success(.rejected) }
        guard response.isSuccess, let subject = subject(in: response.body) else {
            return .failure(
                UnifiedCacheError(
                    code: .tokenVerificationUnavailable,
                    message: "The token verification endpoint answered \(response.status) without a subject."))
        }
        return .success(.accepted(VerifiedPrincipal(subject)))
    }

    private func subject(in body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        switch object[configuration.subjectField] {
        case let text as String where !text.isEmpty: return text
        case let number as Int: return String(number)
        default: return nil
        }
    }
}
