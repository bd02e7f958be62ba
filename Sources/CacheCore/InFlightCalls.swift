import Synchronization

/// One upstream call for all concurrent callers with the same key: the first caller leads, the others wait for
/// its value. REST's `CachedRequestStateManager` and the GraphQL client both de-duplicate through it.
///
/// A caller joins a call only if it may take that call's answer as its own (read your writes):
/// - the call started at a generation no older than the caller's (``CacheGeneration/isNotOlder(than:)``), so a
///   read that starts after a clear or a mutation's invalidation never gets an answer that left before it;
/// - the caller asked for ``Joining/anyCurrentCall`` — a network-only read (``Joining/newCallOnly``, e.g. a
///   pull-to-refresh) always starts its own call, since every call already in flight started before it asked.
///
/// A caller that may not join starts a new call, which takes the key over: later callers join the new call, and
/// the older one goes on for those already waiting. Taking the generation is one stripe lock of the store, paid
/// on the miss path only; many identical concurrent reads with no clear still make exactly one call.
///
/// The call runs in its own task, detached from any single caller, so one caller cancelling leaves the others
/// (and the call) alone; a bounded first step (a second-level read) may run in the leader's task before it (see
/// ``run(_:generation:joining:waitingAtMost:leading:work:)``). The key is released when the call ends, so the next
/// call after a failure tries again.
public final class InFlightCalls<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Whether a caller may be answered by a call already in flight.
    public enum Joining: Sendable {
        /// Join the call in flight for the key if it started at the caller's generation or later.
        case anyCurrentCall
        /// Never join: the caller wants an answer that left after it asked (network-only reads).
        case newCallOnly
    }

    // The path every call takes (enter, the leader's first step, land) is inlinable, so the module that names the
    // key and value types specialises it: unspecialised, its dictionary and generic types cost more than the
    // second-level read it wraps.
    @usableFromInline
    final class Flight: Sendable {
        @usableFromInline
        struct State {
            @usableFromInline var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
            @usableFromInline var nextWaiter = 0
            @usableFromInline var result: Value?

            @inlinable init() {}
        }

        @usableFromInline let generation: CacheGeneration
        @usableFromInline let state: Mutex<State>

        @inlinable
        init(generation: CacheGeneration) {
            self.generation = generation
            self.state = Mutex(State())
        }
    }

    @usableFromInline let flights = Mutex<[Key: Flight]>([:])
    @usableFromInline let releases = Mutex(InFlightReleaseStatistics())

    public init() {}

    /// Distinct calls that later callers may still join.
    public var count: Int {
        flights.withLock { $0.count }
    }

    /// How many callers wait for the joinable call with this key (zero when none is in flight).
    public func waiterCount(for key: Key) -> Int {
        guard let flight = flights.withLock({ $0[key] }) else {
            return 0
        }
        return flight.state.withLock { $0.waiters.count }
    }

    /// How many callers wait for all joinable calls together.
    public var waiterCount: Int {
        let flights = flights.withLock { Array($0.values) }
        return flights.reduce(0) { total, flight in total + flight.state.withLock { $0.waiters.count } }
    }

    /// How quickly waiters were handed their leader's value.
    public var releaseStatistics: InFlightReleaseStatistics {
        releases.withLock { $0 }
    }

    /// Runs `work` once for all concurrent callers with the same key that may share its answer.
    ///
    /// - Parameters:
    ///   - key: identifies identical calls (scope included).
    ///   - generation: the caller's scope generation, taken just before this call; `work` must store its answer
    ///     under this same token, so the call's answer is refused by the store after any later clear.
    ///   - joining: whether the caller may be answered by a call already in flight.
    ///   - work: the upstream call, run in its own task when this caller leads.
    /// - Returns: the value and whether this caller joined another's call, or nil when this caller's task was
    ///   cancelled while waiting (the call itself goes on for the others).
    public func run(
        _ key: Key,
        generation: CacheGeneration,
        joining: Joining = .anyCurrentCall,
        work: @escaping @Sendable () async -> Value
    ) async -> (value: Value, joined: Bool)? {
        let outcome = await run(
            key, generation: generation, joining: joining,
            leading: { () async -> InFlightLeaderStep<Value, Void> in .continuing(()) }, work: { _ in await work() })
        guard case .answered(let answer) = outcome else { return nil }
        return answer
    }

    /// The joinable call for `key`, or a new one this caller leads.
    @inlinable
    func enter(_ key: Key, generation: CacheGeneration, joining: Joining) -> (Flight, isLeader: Bool) {
        flights.withLock { flights -> (Flight, Bool) in
            // One hash of the key: the slot is looked up once and written in place.
            Self.inPlace(&flights[key]) { slot -> (Flight, Bool) in
                if joining == .anyCurrentCall, let flight = slot, flight.generation.isNotOlder(than: generation) {
                    return (flight, false)
                }
                let flight = Flight(generation: generation)
                slot = flight
                return (flight, true)
            }
        }
    }

    /// Runs `body` on a dictionary slot through its in-place accessor (`inPlace(&dictionary[key]) { … }`): one
    /// lookup of the key whether the slot is read, replaced or removed.
    @inlinable
    static func inPlace<Slot, Result>(_ slot: inout Slot, _ body: (inout Slot) -> Result) -> Result {
        body(&slot)
    }

    /// Makes the calls in flight whose key `matches` unjoinable: they go on for their callers, and the next
    /// caller with such a key starts a new call. For writes the store's generation does not see (a mutation that
    /// invalidated nothing, a GraphQL mutation merged into the records).
    public func retire(where matches: (Key) -> Bool) {
        flights.withLock { flights in
            for key in flights.keys.filter(matches) {
                flights[key] = nil
            }
        }
    }

    /// Hands `value` to every caller waiting for `flight`; `leaderWaits` when the leader is one of them.
    @inlinable
    func land(_ flight: Flight, key: Key, value: Value, leaderWaits: Bool) {
        flights.withLock { flights in
            Self.inPlace(&flights[key]) { slot in
                if slot === flight { slot = nil }
            }
        }
        // Most calls have no waiter (an L2 hit, an upstream answer nobody else asked for): no array, no clock.
        let waiters = flight.state.withLock { state -> [CheckedContinuation<Value?, Never>] in
            state.result = value
            guard !state.waiters.isEmpty else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        guard !waiters.isEmpty else { return }
        let clock = ContinuousClock()
        let landed = clock.now
        for waiter in waiters {
            waiter.resume(returning: value)
        }
        // Count the calls that others joined (the leader may be one of the waiters).
        let released = waiters.count + (leaderWaits ? 0 : 1)
        guard released > 1 else {
            return
        }
        let duration = clock.now - landed
        releases.withLock { statistics in
            statistics.sharedFlights += 1
            statistics.waitersReleased += released
            statistics.lastReleaseDuration = duration
            statistics.maximumReleaseDuration = max(statistics.maximumReleaseDuration, duration)
        }
    }

    @usableFromInline
    func wait(on flight: Flight) async -> Value? {
        let id = flight.state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let ready: Value?? = flight.state.withLock { state in
                    if let result = state.result {
                        return .some(result)
                    }
                    if Task.isCancelled {
                        return .some(nil)
                    }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                }
            }
        } onCancel: {
            let waiter = flight.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}

/// How quickly de-duplicated callers were handed their leader's value.
public struct InFlightReleaseStatistics: Sendable, Equatable {
    /// Calls that had at least one waiter besides the leader.
    public var sharedFlights = 0
    /// Callers handed a value in those calls, leaders included.
    public var waitersReleased = 0
    /// From the leader's value to the last caller resumed, for the most recent shared call.
    public var lastReleaseDuration: Duration = .zero
    /// The longest such release so far.
    public var maximumReleaseDuration: Duration = .zero

    public init() {}
}
