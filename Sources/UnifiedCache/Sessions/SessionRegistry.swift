import CacheCore
import CurlHTTP
import Synchronization

/// The live sessions in one recency order: found by key in O(1), ended by idle expiry and by the live-session
/// bound from the least recently used end, so what ends costs what ends and never a scan of every session.
///
/// The order is by last use on the injected clock, which only moves forward: the least recently used session is
/// also the one idle longest, so expiry pops from that end until it meets a session still within its timeout.
/// Everything here runs under one lock and only moves slots; sessions that must end are handed back to the
/// caller, which tears them down outside the lock.
final class SessionRegistry: Sendable {
    struct Limits: Sendable, Equatable {
        var idleTimeout: Duration
        var maxSessions: Int
    }

    private struct Slot: Sendable {
        let key: SessionKey
        let session: CacheSession
        var lastUsed: CacheInstant
    }

    private struct State: Sendable {
        var index: [SessionKey: LRUList<Slot>.Handle] = [:]
        var order = LRUList<Slot>()
        var limits: Limits {
            didSet { idleNanoseconds = OutsideValue.nanoseconds(of: limits.idleTimeout) }
        }
        /// The idle timeout in nanoseconds, converted once rather than on every lookup.
        private(set) var idleNanoseconds: Int64
        var statistics = SessionLifecycleStatistics()

        init(limits: Limits) {
            self.limits = limits
            idleNanoseconds = OutsideValue.nanoseconds(of: limits.idleTimeout)
        }

        /// Idle for the timeout or longer: the one expiry rule of the registry (the deadline saturates at the
        /// ends of the time line).
        static func isExpired(lastUsed: CacheInstant, idleNanoseconds: Int64, at now: CacheInstant) -> Bool {
            lastUsed.advanced(byNanoseconds: idleNanoseconds) <= now
        }

        func isExpired(_ handle: LRUList<Slot>.Handle, at now: CacheInstant) -> Bool {
            Self.isExpired(lastUsed: order[handle].lastUsed, idleNanoseconds: idleNanoseconds, at: now)
        }

        mutating func remove(_ handle: LRUList<Slot>.Handle, reason: ClearReason) -> Ending {
            let slot = order.remove(handle)
            index[slot.key] = nil
            statistics.ended[reason.description, default: 0] += 1
            return Ending(session: slot.session, reason: reason)
        }
    }

    /// A session that left the registry and must now be torn down with this reason.
    struct Ending: Sendable {
        let session: CacheSession
        let reason: ClearReason
    }

    /// What ``acquire(_:principal:now:credentials:factory:)`` found or made, and what had to end on the way.
    struct Acquired: Sendable {
        let session: CacheSession
        let created: Bool
        let endings: [Ending]
    }

    /// How many expired sessions one acquire ends at most, so no request pays for a burst of expiries; the
    /// hub's maintenance ends the rest.
    static let expiriesPerAcquire = 8

    private let state: Mutex<State>

    init(limits: Limits) {
        state = Mutex(State(limits: limits))
    }

    var limits: Limits {
        state.withLock { $0.limits }
    }

    /// What ``acquire(_:principal:now:credentials:factory:)`` found: most often the live session with nothing else
    /// to do.
    enum Lookup: Sendable {
        /// The live session bound to the principal, marked used, with nothing ended on the way.
        case live(CacheSession)
        /// Any other case: a session made, or found with others ended on the way.
        case acquired(Acquired)
    }

    /// The live session for `key`, if it is bound to `principal` and not expired; otherwise a new session with
    /// these credentials, registered as the most recent. A session under the same key with another principal, or
    /// past its idle timeout, is removed and returned among the endings; so are up to ``expiriesPerAcquire`` other
    /// expired sessions and, past the bound, the least recently used ones.
    ///
    /// A live session found with nothing else to end (the path of every request of a signed-in user) costs one
    /// hash of the key, a touch and a move in the order, and makes no endings array (nor a closure capturing the
    /// credentials: the session is made here, from the arguments, only when one is needed).
    func acquire(
        _ key: SessionKey,
        principal: VerifiedPrincipal,
        now: CacheInstant,
        credentials: UpstreamCredentials,
        factory: SessionFactory
    ) -> Lookup {
        state.withLock { state in
            func make() -> CacheSession {
                CacheSession(key: key, principal: principal, credentials: credentials, factory: factory)
            }
            guard let handle = state.index[key] else {
                return .acquired(Self.register(key, make(), in: &state, now: now, endings: []))
            }
            let idleNanoseconds = state.idleNanoseconds
            let live = state.order.update(handle) { slot -> CacheSession? in
                guard slot.session.principal == principal,
                    !State.isExpired(lastUsed: slot.lastUsed, idleNanoseconds: idleNanoseconds, at: now)
                else { return nil }
                slot.lastUsed = now
                return slot.session
            }
            if let live {
                state.order.moveToMostRecent(handle)
                guard let oldest = state.order.leastRecent, state.isExpired(oldest, at: now) else {
                    return .live(live)
                }
                var endings: [Ending] = []
                Self.endExpired(in: &state, at: now, limit: Self.expiriesPerAcquire, into: &endings)
                return .acquired(Acquired(session: live, created: false, endings: endings))
            }
            let expired = state.isExpired(handle, at: now)
            let ending = state.remove(handle, reason: expired ? .sessionExpired : .principalChanged)
            return .acquired(Self.register(key, make(), in: &state, now: now, endings: [ending]))
        }
    }

    /// Registers a new session as the most recent, then ends up to ``expiriesPerAcquire`` expired sessions and,
    /// past the bound, the least recently used ones.
    private static func register(
        _ key: SessionKey, _ session: CacheSession, in state: inout State, now: CacheInstant, endings: [Ending]
    ) -> Acquired {
        var endings = endings
        state.index[key] = state.order.insertAsMostRecent(Slot(key: key, session: session, lastUsed: now))
        state.statistics.created += 1
        endExpired(in: &state, at: now, limit: expiriesPerAcquire, into: &endings)
        while state.order.count > state.limits.maxSessions, let oldest = state.order.leastRecent {
            endings.append(state.remove(oldest, reason: .sessionEvicted))
        }
        return Acquired(session: session, created: true, endings: endings)
    }

    /// The live session for `key`, without marking it used.
    func existing(_ key: SessionKey) -> CacheSession? {
        state.withLock { state in state.index[key].map { state.order[$0].session } }
    }

    /// Removes the session under `key` (a logout), or only `session` when given; nil when none is live.
    func remove(_ key: SessionKey, reason: ClearReason, only session: CacheSession? = nil) -> Ending? {
        state.withLock { state in
            guard let handle = state.index[key] else { return nil }
            if let session, state.order[handle].session !== session { return nil }
            return state.remove(handle, reason: reason)
        }
    }

    /// Removes every session idle for the timeout or longer; costs what it removes.
    func removeExpired(at now: CacheInstant) -> [Ending] {
        state.withLock { state in
            var endings: [Ending] = []
            Self.endExpired(in: &state, at: now, limit: .max, into: &endings)
            return endings
        }
    }

    /// Removes the least recently used session for memory, never the most recent one (it is the one being
    /// served); nil when fewer than two are live.
    func removeLeastRecentForMemory() -> Ending? {
        state.withLock { state in
            guard state.order.count > 1, let oldest = state.order.leastRecent else {
                return nil
            }
            return state.remove(oldest, reason: .memoryPressure)
        }
    }

    /// Applies new limits; sessions past the new bound or idle past the new timeout are removed.
    func update(_ limits: Limits, now: CacheInstant) -> [Ending] {
        state.withLock { state in
            state.limits = limits
            var endings: [Ending] = []
            Self.endExpired(in: &state, at: now, limit: .max, into: &endings)
            while state.order.count > limits.maxSessions, let oldest = state.order.leastRecent {
                endings.append(state.remove(oldest, reason: .sessionEvicted))
            }
            return endings
        }
    }

    /// Counts a token refresh of a live session.
    func countCredentialRefresh() {
        state.withLock { $0.statistics.credentialRefreshes += 1 }
    }

    var count: Int { state.withLock { $0.order.count } }

    /// Every live session, most recent first (for reloads and statistics; costs a copy).
    var sessions: [CacheSession] {
        state.withLock { state in state.order.handlesFromMostRecent.map { state.order[$0].session } }
    }

    var statistics: SessionLifecycleStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.live = state.order.count
            return statistics
        }
    }

    private static func endExpired(
        in state: inout State, at now: CacheInstant, limit: Int, into endings: inout [Ending]
    ) {
        var ended = 0
        while ended < limit, let oldest = state.order.leastRecent, state.isExpired(oldest, at: now) {
            endings.append(state.remove(oldest, reason: .sessionExpired))
            ended += 1
        }
    }
}
