import Synchronization

/// In-flight de-duplication (the seed's `CachedRequestStateManager`): concurrent identical requests (same scope
/// and key) make one upstream call, and every waiter gets the leader's result.
///
/// The upstream call runs in its own task, detached from any single waiter, so one waiter cancelling leaves
/// the others (and the call) alone. The entry is removed when the call ends, so the next request after a
/// failure tries again.
public final class CachedRequestStateManager: Sendable {
    /// Identifies identical requests.
    public struct Key: Hashable, Sendable {
        public var scope: CacheScope
        public var key: String

        public init(scope: CacheScope, key: String) {
            self.scope = scope
            self.key = key
        }
    }

    private final class Flight: Sendable {
        struct State {
            var waiters: [Int: CheckedContinuation<(any Sendable)?, Never>] = [:]
            var nextWaiter = 0
            var result: (any Sendable)??
        }
        let state = Mutex(State())
    }

    /// How quickly waiters were handed the leader's answer.
    public struct ReleaseStatistics: Sendable, Equatable {
        /// Calls that had at least one waiter.
        public var sharedFlights = 0
        /// Waiters handed an answer in total.
        public var waitersReleased = 0
        /// From the leader's answer to the last waiter resumed, for the most recent shared call.
        public var lastReleaseDuration: Duration = .zero
        /// The longest such release so far.
        public var maximumReleaseDuration: Duration = .zero
    }

    private let flights = Mutex<[Key: Flight]>([:])
    private let releases = Mutex(ReleaseStatistics())

    /// Release timings of calls joined by waiters.
    public var releaseStatistics: ReleaseStatistics { releases.withLock { $0 } }

    public init() {}

    /// The number of distinct requests in flight.
    public var inFlightCount: Int { flights.withLock { $0.count } }

    /// How many callers are waiting for the request with this key (zero when none is in flight).
    public func waiterCount(for key: Key) -> Int {
        guard let flight = flights.withLock({ $0[key] }) else { return 0 }
        return flight.state.withLock { $0.waiters.count }
    }

    /// Runs `operation` once for all concurrent callers with the same key.
    ///
    /// - Returns: the operation's value, whether this caller joined another's call, or nil when this caller's
    ///   task was cancelled while waiting (the call itself goes on for the others).
    public func run<Value: Sendable>(
        _ key: Key,
        operation: @escaping @Sendable () async -> Value
    ) async -> (value: Value, joined: Bool)? {
        let (flight, isLeader) = flights.withLock { flights -> (Flight, Bool) in
            if let flight = flights[key] { return (flight, false) }
            let flight = Flight()
            flights[key] = flight
            return (flight, true)
        }
        if isLeader {
            Task {
                let value = await operation()
                self.land(flight, key: key, value: value)
            }
        }
        guard let value = await wait(on: flight) else { return nil }
        guard let typed = value as? Value else {
            // Same key, different response type: not shareable; fetch on our own.
            return (await operation(), false)
        }
        return (typed, !isLeader)
    }

    private func land(_ flight: Flight, key: Key, value: any Sendable) {
        let clock = ContinuousClock()
        let landed = clock.now
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
        let waiters = flight.state.withLock { state in
            state.result = .some(value)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
        // The leader itself is one of the waiters; count the calls that others joined.
        guard waiters.count > 1 else { return }
        let duration = clock.now - landed
        releases.withLock { statistics in
            statistics.sharedFlights += 1
            statistics.waitersReleased += waiters.count
            statistics.lastReleaseDuration = duration
            statistics.maximumReleaseDuration = max(statistics.maximumReleaseDuration, duration)
        }
    }

    private func wait(on flight: Flight) async -> (any Sendable)? {
        let id = flight.state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<(any Sendable)?, Never>) in
                let ready: (any Sendable)?? = flight.state.withLock { state in
                    if let result = state.result { return .some(result) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = flight.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}
