import Synchronization

/// In-flight de-duplication: concurrent calls with the same key share one run of the work.
///
/// The work runs in its own task, detached from any single caller, so a caller that cancels stops waiting
/// without cancelling the work for the others. The entry goes when the work ends, so the next call after a
/// failure tries again. (The same mechanism as RESTCache's `CachedRequestStateManager`, which this module
/// cannot import.)
final class InFlightRequests<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Flight: Sendable {
        struct State {
            var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
            var nextWaiter = 0
            var result: Value?
        }

        let state = Mutex(State())
    }

    private let flights = Mutex<[Key: Flight]>([:])

    init() {}

    /// Work in flight now.
    var count: Int {
        flights.withLock { $0.count }
    }

    /// Callers waiting for the work under `key` (zero when none is in flight).
    func waiterCount(for key: Key) -> Int {
        guard let flight = flights.withLock({ $0[key] }) else {
            return 0
        }
        return flight.state.withLock { $0.waiters.count }
    }

    /// Runs `work` once for every concurrent caller with the same key.
    /// - Returns: the value and whether this caller joined another's run; `nil` when this caller's task was
    ///   cancelled while waiting.
    func run(_ key: Key, work: @escaping @Sendable () async -> Value) async -> (value: Value, joined: Bool)? {
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
