import CacheCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The second level's event loop, confined to its thread: one hiredis connection per node (one node, or every
/// primary of a Redis Cluster), fully pipelined, driven by poll() with the loop's wake-up pipe. Each turn takes the
/// queued clears, writes and reads under one lock, sends each to the node that owns its namespace's slot (clears
/// first, so a clear queued before a read is applied before it), waits until a reply, a wake-up or the nearest
/// deadline, and resumes each read exactly once: with its reply, at its deadline (the late reply is then read and
/// discarded), or with a failure when its node is lost, down or the store stops. A node lost on a cluster fails
/// only the reads of its slots; the other nodes keep serving.
final class RedisSecondLevelWorker {
    struct Batch {
        var reads: [RedisSecondLevelLoop.Read] = []
        var writes: [RedisSecondLevelLoop.Write] = []
        var clears: [(id: Int, operation: RedisSecondLevelLoop.ClearOperation)] = []
        var finishedWaiters: [CheckedContinuation<Void, Never>] = []
        var stop = false
    }

    let loop: RedisSecondLevelLoop
    let configuration: RedisSecondLevelConfiguration
    let keys: RedisSecondLevelKeys
    let clock: ContinuousClock
    let isCluster: Bool
    /// The one node of a single server (unused on a cluster).
    let configuredNode: RedisNodeAddress
    /// The slot of the epoch key (made once: a CRC16 of the key).
    let epochSlot: Int
    /// Nodes by address; on a cluster, those of the slot map (and any a redirection named).
    var links: [RedisNodeAddress: RedisNodeLink] = [:]
    var map = RedisClusterMap()
    var mapRefreshDue = true
    var isDiscovering = false
    var nextDiscovery: ContinuousClock.Instant
    var discoveryBackoff: Duration
    var commands: RedisSecondLevelCommands?
    /// The fleet epoch as last read or moved; nil until the node that holds it answered once.
    var epoch: String?
    var lastEpochPoll: ContinuousClock.Instant
    var epochPollOutstanding = false
    /// Clears taken from the shared queue and not yet sent (or sent to a node lost before it answered).
    var pendingClears: [RedisPendingClear] = []
    var reads: [Int: RedisSecondLevelLoop.Read] = [:]
    var nextReadID = 0
    // Handed to the shared state at the next exchange.
    var delta = SecondLevelStatistics()
    var answeredWrites = 0
    var appliedClears: [Int] = []
    /// Whether the last poll() found the wake pipe readable (or did not watch it): drained before the next exchange.
    var wakePipeMayHoldBytes = true
    /// Whether a lane is lent now (see `RedisSecondLevelWorker+Lane.swift`).
    var isLent = false
    /// Reads answered this turn, resumed by ``deliver()`` once the counters include them.
    var answered: [(CheckedContinuation<SecondLevelRead, Never>, SecondLevelRead)] = []

    init(loop: RedisSecondLevelLoop) {
        self.loop = loop
        configuration = loop.configuration
        keys = RedisSecondLevelKeys(prefix: loop.configuration.keyPrefix)
        clock = loop.clock
        isCluster = loop.configuration.connection.topology.isCluster
        configuredNode = RedisNodeAddress(
            host: loop.configuration.connection.host, port: loop.configuration.connection.port)
        epochSlot = RedisClusterSlot.of(keys.epoch)
        lastEpochPoll = clock.now
        nextDiscovery = clock.now
        discoveryBackoff = configuration.connection.initialBackoff
    }

    /// Whether reads can be sent: a node is connected and the epoch is known.
    var isReady: Bool { epoch != nil && links.values.contains(where: \.isConnected) }

    func run() {
        while true {
            if wakePipeMayHoldBytes {
                loop.wakePipe.drain()
                wakePipeMayHoldBytes = false
            }
            let batch = exchange()
            for waiter in batch.finishedWaiters { waiter.resume() }
            if batch.stop {
                finish(batch)
                return
            }
            maintain()
            guard isReady else {
                refuse(batch)
                waitForWake()
                continue
            }
            turn(batch)
        }
    }

    // MARK: Shared state

    /// The one lock acquisition of a turn: hands over counters and applied clears, takes the queues (clears only
    /// while ready: otherwise they wait, and collapse, in the shared queue), resumes clear callers whose clear was
    /// applied.
    private func exchange() -> Batch {
        let state = connectionState
        return loop.shared.withLock { shared in
            var batch = Batch()
            shared.wakePending = false
            shared.isConnected = state.ready
            shared.nodes = state.nodes
            shared.statistics.add(delta)
            delta = SecondLevelStatistics()
            shared.writesOutstanding -= answeredWrites
            answeredWrites = 0
            for id in appliedClears {
                guard let index = shared.clears.firstIndex(where: { $0.id == id }) else { continue }
                for waiter in shared.clears.remove(at: index).waiters {
                    if let waiting = shared.clearWaiters.removeValue(forKey: waiter) {
                        batch.finishedWaiters.append(waiting)
                    }
                }
            }
            appliedClears.removeAll()
            batch.stop = shared.stopRequested
            swap(&batch.reads, &shared.reads)
            swap(&batch.writes, &shared.writes)
            guard state.ready else { return batch }
            for index in shared.clears.indices where !shared.clears[index].isSent {
                shared.clears[index].isSent = true
                batch.clears.append((shared.clears[index].id, shared.clears[index].operation))
            }
            return batch
        }
    }

    /// Tells callers at once whether reads can be sent and how many nodes are connected (a change of connections
    /// must not wait for the next exchange, which an idle loop makes only at its next health check).
    func publishConnectionState() {
        let state = connectionState
        loop.shared.withLock { shared in
            shared.isConnected = state.ready
            shared.nodes = state.nodes
        }
    }

    /// Whether reads can be sent, and how many nodes are connected of how many known.
    private var connectionState: (ready: Bool, nodes: (connected: Int, known: Int)) {
        let connected = links.values.reduce(0) { $0 + ($1.isConnected ? 1 : 0) }
        return (isReady, (connected, isCluster ? map.nodes.count : 1))
    }

    /// While not ready: reads queued before the store noticed fail, writes are dropped.
    private func refuse(_ batch: Batch) {
        delta.errors += batch.reads.count
        delta.droppedWrites += batch.writes.count
        answeredWrites += batch.writes.count
        for read in batch.reads { answered.append((read.continuation, .unavailable(.error))) }
        deliver()
    }

    /// Publishes the counters, then resumes the reads answered since: a caller sees its read counted.
    func deliver() {
        guard !answered.isEmpty else { return }
        loop.shared.withLock { shared in
            shared.statistics.add(delta)
            delta = SecondLevelStatistics()
            shared.writesOutstanding -= answeredWrites
            answeredWrites = 0
        }
        for (continuation, outcome) in answered { continuation.resume(returning: outcome) }
        answered.removeAll(keepingCapacity: true)
    }

    func record(_ error: RedisReplicationError) {
        loop.shared.withLock { $0.lastError = error }
    }

    /// Sleeps in poll() on the wake pipe until the next connection or discovery attempt, or a wake-up.
    private func waitForWake() {
        var next = clock.now + configuration.connection.pingInterval
        if isCluster, !isDiscovering, map.nodes.isEmpty || mapRefreshDue { next = min(next, nextDiscovery) }
        for link in links.values where !link.isConnected && !link.isConnecting { next = min(next, link.nextAttempt) }
        let remaining = next - clock.now
        wakePipeMayHoldBytes = true
        guard remaining > .zero else { return }
        loop.wakePipe.wait(milliseconds: remaining.milliseconds)
    }

    private func finish(_ batch: Batch) {
        for link in links.values { _ = link.drop() }
        let stopped = reads.values.map(\.continuation) + batch.reads.map(\.continuation)
        reads.removeAll()
        let (queued, waiters, onStopped) = loop.shared.withLock { shared in
            shared.isRunning = false
            shared.isConnected = false
            shared.clears.removeAll()
            shared.writes.removeAll()
            shared.lane = nil
            defer {
                shared.reads.removeAll()  // none: reads are refused once a stop is requested
                shared.laneReads.removeAll()  // none: the lane is taken back before the loop stops
                shared.clearWaiters.removeAll()
                shared.onStopped.removeAll()
            }
            return (
                (shared.reads + shared.laneReads.map(\.read)).map(\.continuation), Array(shared.clearWaiters.values),
                shared.onStopped
            )
        }
        for read in stopped + queued { read.resume(returning: .unavailable(.stopped)) }
        for waiter in waiters + onStopped { waiter.resume() }
    }
}
