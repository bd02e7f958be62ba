import CacheCore
import Foundation  // Thread, once at start; nothing per read
import Synchronization

/// The side of the second level that Swift tasks touch: they append to queues under one lock and, when the event
/// loop is not already due to wake, write one byte to its pipe. Redis I/O happens on the loop's own thread
/// (``RedisSecondLevelWorker``), which resumes every read exactly once; the exception is a read made while that
/// thread sleeps with one server's link idle, which makes its round trip itself (``RedisSecondLevelLane``).
final class RedisSecondLevelLoop: RedisLoopStopping, Sendable {
    /// A read waiting for its reply or its deadline.
    struct Read {
        var key: SecondLevelKey
        var startedAt: ContinuousClock.Instant
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<SecondLevelRead, Never>
        /// Made again already under an epoch its replies named (see ``RedisSecondLevelCommands/ReadAnswer``).
        var retriedUnderMovedEpoch = false
    }

    /// A read a caller sent on the lane and handed over before all its replies came.
    struct LaneRead {
        var read: Read
        /// The epoch its value key was named under.
        var epoch: String
        /// The replies that came before the caller stopped waiting (the first of its parts).
        var received: [RedisReply]
    }

    /// A write waiting to be sent.
    struct Write {
        var key: SecondLevelKey
        var value: [UInt8]
        var token: String
        var timeToLiveMilliseconds: Int
        var tags: [SecondLevelTag]
    }

    /// What a clear does in Redis.
    enum ClearOperation: Equatable {
        case namespace(SecondLevelNamespace)
        case tags([SecondLevelTag], SecondLevelNamespace)
        case all
    }

    /// A clear kept until Redis applied it; re-sent after a reconnection.
    struct Clear {
        var id: Int
        var operation: ClearOperation
        /// Callers still waiting for it (ids in ``Shared/clearWaiters``).
        var waiters: [Int]
        var isSent = false
    }

    private enum Admission {
        case queued(wake: Bool)
        case refused(SecondLevelFailure)
    }

    struct Shared: RedisLoopState {
        var isConnected = false
        /// Nodes connected, of those the store serves (one, or the primaries of the cluster's slot map).
        var nodes = (connected: 0, known: 0)
        var isRunning = false
        var stopRequested = false
        /// A byte is in the pipe, or the loop has not yet taken the queues: no need to write another.
        var wakePending = false
        var reads: [Read] = []
        /// One server's idle connection, while the loop's thread sleeps and no caller holds it (see
        /// ``RedisSecondLevelLane``).
        var lane: RedisSecondLevelLane?
        /// A caller holds the lane now (taken out of ``lane``); the loop's thread waits for it to take it back.
        var laneInUse = false
        /// The loop's thread waits to take the lane back: the caller holding it wakes it when done.
        var laneWanted = false
        /// Reads a caller sent on the lane whose replies the loop's thread now owes, in the order they went out.
        var laneReads: [LaneRead] = []
        /// The epoch the lane's replies named last, for the loop's thread.
        var laneEpoch: String?
        /// Why the lent connection must be dropped (it failed under a caller).
        var laneFailure: RedisReplicationError?
        /// Reads sent on a lane since the store started; those answered on the caller's thread, and those handed to
        /// the loop's thread.
        var laneReadCount = 0
        var laneAnsweredCount = 0
        var laneHandedOverCount = 0
        var writes: [Write] = []
        /// Writes queued here or sent and not yet answered (bounded by ``RedisSecondLevelConfiguration/writeQueueLimit``).
        var writesOutstanding = 0
        /// Clears not yet applied, oldest first.
        var clears: [Clear] = []
        var clearWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
        var statistics = SecondLevelStatistics()
        /// Why the last connection failed or could not be made (never holds the password).
        var lastError: RedisReplicationError?
        var onStopped: [CheckedContinuation<Void, Never>] = []

        /// Queues a clear; when ``RedisSecondLevelConfiguration/clearQueueLimit`` clears are pending, the unsent
        /// ones and this one become one fleet-wide clear, which removes at least what each would have.
        mutating func enqueue(_ operation: ClearOperation, waiter: Int, limit: Int) {
            nextID += 1
            guard clears.count >= limit else {
                clears.append(Clear(id: nextID, operation: operation, waiters: [waiter]))
                return
            }
            let unsent = clears.filter { !$0.isSent }
            clears.removeAll { !$0.isSent }
            clears.append(Clear(id: nextID, operation: .all, waiters: unsent.flatMap(\.waiters) + [waiter]))
        }
    }

    let configuration: RedisSecondLevelConfiguration
    let clock = ContinuousClock()
    let shared = Mutex(Shared())
    let wakePipe = RedisWakePipe()
    /// Connections made, and slot maps discovered, on connecting threads (blocking work the loop's thread never
    /// does, so a paused node cannot stall the reads of the others), waiting for the loop to take them.
    let handoff = Mutex<(handshakes: [RedisNodeHandshake], discovered: [(RedisClusterMap, RedisReplicationError?)])>(
        ([], []))

    init(configuration: RedisSecondLevelConfiguration) {
        self.configuration = configuration
    }

    /// Starts the loop's thread. The thread holds the loop (not the store), so a store dropped without
    /// ``stop()`` only has to ask it to stop.
    func start() {
        shared.withLock { $0.isRunning = true }
        let thread = Thread { [self] in RedisSecondLevelWorker(loop: self).run() }
        thread.name = "RedisSecondLevel event loop"
        thread.start()
    }

    // MARK: Any thread

    func read(_ key: SecondLevelKey, deadline: Duration) async -> SecondLevelRead {
        let startedAt = clock.now
        let due = startedAt + min(deadline, .seconds(3600))
        if let lane = checkOutLane() {
            // The loop's thread sleeps with the link idle and nothing queued: the round trip is made here.
            let limit = min(due, startedAt + configuration.callerWait)
            switch lane.roundTrip(key, waitingUntil: limit) {
            case .answered(let answer): return settle(answer, on: lane, startedAt: startedAt)
            case .failed(let failure): return give(back: lane, failing: failure)
            case .owed(let failure, let received, let epoch):
                return await withCheckedContinuation { continuation in
                    let read = Read(key: key, startedAt: startedAt, deadline: due, continuation: continuation)
                    handOver(LaneRead(read: read, epoch: epoch, received: received), failure)
                }
            }
        }
        return await withCheckedContinuation { continuation in
            let admission = shared.withLock { shared -> Admission in
                if shared.stopRequested { return .refused(.stopped) }
                guard shared.isConnected else {
                    shared.statistics.errors += 1
                    return .refused(.error)
                }
                shared.reads.append(Read(key: key, startedAt: startedAt, deadline: due, continuation: continuation))
                return .queued(wake: wakeNeeded(&shared))
            }
            switch admission {
            case .refused(let failure): continuation.resume(returning: .unavailable(failure))
            case .queued(let wake): if wake { self.wake() }
            }
        }
    }

    func enqueue(_ write: Write) {
        let needsWake = shared.withLock { shared -> Bool in
            guard !shared.stopRequested, shared.isConnected, write.value.count <= configuration.maxValueBytes,
                shared.writesOutstanding < configuration.writeQueueLimit
            else {
                shared.statistics.droppedWrites += 1
                return false
            }
            shared.writesOutstanding += 1
            shared.writes.append(write)
            return wakeNeeded(&shared)
        }
        if needsWake { wake() }
    }

    /// Queues the clear and waits until it is applied or ``RedisSecondLevelConfiguration/clearDeadline`` passed.
    /// The deadline is kept by a task of its own, not by the loop, so it holds even while the loop's thread waits
    /// for a connection to be made.
    func clear(_ operation: ClearOperation) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (waiter, needsWake) = shared.withLock { shared -> (Int?, Bool) in
                guard !shared.stopRequested else { return (nil, false) }
                shared.nextID += 1
                let waiter = shared.nextID
                shared.clearWaiters[waiter] = continuation
                shared.enqueue(operation, waiter: waiter, limit: configuration.clearQueueLimit)
                return (waiter, wakeNeeded(&shared))
            }
            guard let waiter else { return continuation.resume() }
            if needsWake { wake() }
            let deadline = configuration.clearDeadline
            Task { [self] in
                try? await Task.sleep(for: deadline)
                shared.withLock { $0.clearWaiters.removeValue(forKey: waiter) }?.resume()
            }
        }
    }

    func statistics() -> SecondLevelStatistics {
        shared.withLock { shared in
            var statistics = shared.statistics
            statistics.isConnected = shared.isConnected
            return statistics
        }
    }

    /// Nodes connected and known (see ``Shared/nodes``).
    var nodes: (connected: Int, known: Int) {
        shared.withLock { $0.nodes }
    }

    var lastError: RedisReplicationError? {
        shared.withLock { $0.lastError }
    }

    /// Reads whose command the caller wrote itself (see ``RedisSecondLevelLane``): all, answered on the caller's
    /// thread, handed to the loop's thread.
    var laneCounts: (sent: Int, answered: Int, handedOver: Int) {
        shared.withLock { ($0.laneReadCount, $0.laneAnsweredCount, $0.laneHandedOverCount) }
    }

    /// Asks the thread to stop without waiting (a store dropped without shutdown).
    func requestStop() {
        shared.withLock { $0.stopRequested = true }
        wake()
    }

    func wakeNeeded(_ shared: inout Shared) -> Bool {
        defer { shared.wakePending = true }
        return !shared.wakePending
    }

    func wake() {
        wakePipe.wake()
    }
}
