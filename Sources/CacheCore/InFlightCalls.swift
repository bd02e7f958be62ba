import Synchronization

/// One upstream call for all concurrent callers with the same key: the first caller leads, the others wait for
/// its value. REST's `CachedRequestStateManager` and the GraphQL client both de-duplicate through it.
///
/// The call runs in its own task, detached from any single caller, so one caller cancelling leaves the others
/// (and the call) alone. The key is released when the call ends, so the next call after a failure tries again.
public final class InFlightCalls<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Flight: Sendable {
        struct State {
            var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
            var nextWaiter = 0
            var result: Value?
        }

        let state = Mutex(State())
    }

    private let flights = Mutex<[Key: Flight]>([:])
    private let releases = Mutex(InFlightReleaseStatistics())

    public init() {}

    /// Distinct calls in flight now.
    public var count: Int {
        flights.withLock { $0.count }
    }

    /// How many callers wait for the call with this key (zero when none is in flight).
    public func waiterCount(for key: Key) -> Int {
        guard let flight = flights.withLock({ $0[key] }) else {
            return 0
        }
        return flight.state.withLock { $0.waiters.count }
    }

    /// How quickly waiters were handed their leader's value.
    public var releaseStatistics: InFlightReleaseStatistics {
        releases.withLock { $0 }
    }

    /// Runs `work` once for all concurrent callers with the same key.
    ///
    /// - Returns: the value and whether this caller joined another's call, or nil when this caller's task was
    ///   cancelled while waiting (the call itself goes on for the others).
    public func run(_ key: Key, work: @escaping @Sendable () async -> Value) async -> (value: Value, joined: Bool)? {
        let (flight, isLeader) = flights.withLock { flights -> (Flight, Bool) in
            if let flight = flights[key] {
                return (flight, false)
            }
            let flight = Flight()
            flights[key] = flight
            return (flight, true)
        }
        if isLeader {
            Task {
                let value = await work()
                self.land(flight, key: key, value: value)
            }
        }
        guard let value = await wait(on: flight) else {
            return nil
        }
        return (value, !isLeader)
    }

    private func land(_ flight: Flight, key: Key, value: Value) {
        let clock = ContinuousClock()
        let landed = clock.now
        flights.withLock { flights in
            if flights[key] === flight {
                flights[key] = nil
            }
        }
        let waiters = flight.state.withLock { state in
            state.result = value
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(returning: value)
        }
        // The leader itself is one of the waiters; count the calls that others joined.
        guard waiters.count > 1 else {
            return
        }
        let duration = clock.now - landed
        releases.withLock { statistics in
            statistics.sharedFlights += 1
            statistics.waitersReleased += waiters.count
            statistics.lastReleaseDuration = duration
            statistics.maximumReleaseDuration = max(statistics.maximumReleaseDuration, duration)
        }
    }

    private func wait(on flight: Flight) async -> Value? {
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
