import UnifiedCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The second level's event loop, confined to its thread: one hiredis connection, fully pipelined, driven by
/// poll() with the loop's wake-up pipe. Each turn takes the queued clears, writes and reads under one lock, sends
/// them (clears first, so a clear queued before a read is applied before it), waits until a reply, a wake-up or the
/// nearest deadline, and resumes each read exactly once: with its reply, at its deadline (the late reply is then
/// read and discarded), or with a failure when the connection is lost or the store stops.
final class RedisSecondLevelWorker {
    private enum Owed {
        case read(Int)
        case write(bytes: Int)
        case clear(Int)
        case ping
    }

    private struct Batch {
        var reads: [RedisSecondLevelLoop.Read] = []
        var writes: [RedisSecondLevelLoop.Write] = []
        var clears: [(id: Int, operation: RedisSecondLevelLoop.ClearOperation)] = []
        var finishedWaiters: [CheckedContinuation<Void, Never>] = []
        var stop = false
    }

    private let loop: RedisSecondLevelLoop
    private let configuration: RedisSecondLevelConfiguration
    private let keys: RedisSecondLevelKeys
    private let clock: ContinuousClock
    private var connection: RedisConnection?
    private var commands: RedisSecondLevelCommands?
    /// Replies the connection owes, oldest first (Redis answers in order), from `owedHead` on.
    private var owed: [(what: Owed, sentAt: ContinuousClock.Instant)] = []
    private var owedHead = 0
    private var reads: [Int: RedisSecondLevelLoop.Read] = [:]
    private var nextReadID = 0
    private var lastSend: ContinuousClock.Instant
    private var nextAttempt: ContinuousClock.Instant
    private var backoff: Duration
    // Handed to the shared state at the next exchange.
    private var delta = SecondLevelStatistics()
    private var answeredWrites = 0
    private var appliedClears: [Int] = []
    /// Reads answered this turn, resumed by ``deliver()`` once the counters include them.
    private var answered: [(CheckedContinuation<SecondLevelRead, Never>, SecondLevelRead)] = []

    init(loop: RedisSecondLevelLoop) {
        self.loop = loop
        configuration = loop.configuration
        keys = RedisSecondLevelKeys(prefix: loop.configuration.keyPrefix)
        clock = loop.clock
        lastSend = clock.now
        nextAttempt = clock.now
        backoff = configuration.connection.initialBackoff
    }

    func run() {
        while true {
            loop.wakePipe.drain()
            let batch = exchange()
            for waiter in batch.finishedWaiters { waiter.resume() }
            if batch.stop {
                finish(batch)
                return
            }
            guard connection != nil else {
                refuse(batch)
                if clock.now >= nextAttempt, connect() { continue }
                waitForWake()
                continue
            }
            do throws(RedisReplicationError) {
                try turn(batch)
            } catch {
                disconnect(error)
            }
        }
    }

    // MARK: Shared state

    /// The one lock acquisition of a turn: hands over counters and applied clears, takes the queues, resumes
    /// clear callers whose clear was applied.
    private func exchange() -> Batch {
        let connected = connection != nil
        return loop.shared.withLock { shared in
            var batch = Batch()
            shared.wakePending = false
            shared.isConnected = connected
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
            for index in shared.clears.indices {
                if connected {
                    guard !shared.clears[index].isSent else { continue }
                    shared.clears[index].isSent = true
                    batch.clears.append((shared.clears[index].id, shared.clears[index].operation))
                } else {
                    shared.clears[index].isSent = false  // re-sent after the reconnection
                }
            }
            return batch
        }
    }

    /// While disconnected: reads queued before the store noticed fail, writes are dropped.
    private func refuse(_ batch: Batch) {
        delta.errors += batch.reads.count
        delta.droppedWrites += batch.writes.count
        answeredWrites += batch.writes.count
        for read in batch.reads { answered.append((read.continuation, .unavailable(.error))) }
        deliver()
    }

    /// Publishes the counters, then resumes the reads answered since: a caller sees its read counted.
    private func deliver() {
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

    // MARK: Connection

    /// Connects, authenticates and loads the scripts (each step bounded by the configured timeouts).
    private func connect() -> Bool {
        do throws(RedisReplicationError) {
            let made = try RedisConnection(configuration.connection)
            var hashes: [[UInt8]] = []
            for load in RedisSecondLevelCommands.scriptLoads {
                guard case .string(let hash) = try made.command(load) else {
                    throw RedisReplicationError(.protocolError, "Redis refused SCRIPT LOAD.")
                }
                hashes.append(hash)
            }
            try made.makeNonBlocking()
            connection = made
            commands = RedisSecondLevelCommands(
                keys: keys,
                hashes: ScriptHashes(
                    read: hashes[0], write: hashes[1], clearNamespace: hashes[2], clearTags: hashes[3]),
                maxTimeToLive: configuration.maxTimeToLive)
            backoff = configuration.connection.initialBackoff
            lastSend = clock.now
            return true
        } catch {
            loop.shared.withLock { $0.lastError = error }
            scheduleReconnection()
            return false
        }
    }

    /// Drops the connection: reads in flight fail now, writes in flight are dropped, clears in flight are re-sent
    /// after the reconnection (the next exchange marks them unsent).
    private func disconnect(_ error: RedisReplicationError) {
        loop.shared.withLock { $0.lastError = error }
        connection = nil
        commands = nil
        for (what, _) in owed[owedHead...] {
            if case .write = what {
                answeredWrites += 1
                delta.droppedWrites += 1
            }
        }
        owed.removeAll()
        owedHead = 0
        delta.errors += reads.count
        for read in reads.values { answered.append((read.continuation, .unavailable(.error))) }
        reads.removeAll()
        deliver()
        scheduleReconnection()
    }

    /// Backoff doubling up to the maximum, with ±20 % jitter so a fleet does not reconnect in lockstep.
    private func scheduleReconnection() {
        nextAttempt = clock.now + backoff * Double.random(in: 0.8...1.2)
        backoff = min(backoff * 2, configuration.connection.maximumBackoff)
    }

    /// Sleeps in poll() on the wake pipe until the next connection attempt or a wake-up.
    private func waitForWake() {
        let remaining = nextAttempt - clock.now
        guard remaining > .zero else { return }
        loop.wakePipe.wait(milliseconds: remaining.milliseconds)
    }

    private func finish(_ batch: Batch) {
        connection = nil
        let stopped = reads.values.map(\.continuation) + batch.reads.map(\.continuation)
        reads.removeAll()
        let (queued, waiters, onStopped) = loop.shared.withLock { shared in
            shared.isRunning = false
            shared.isConnected = false
            shared.clears.removeAll()
            shared.writes.removeAll()
            defer {
                shared.reads.removeAll()  // none: reads are refused once a stop is requested
                shared.clearWaiters.removeAll()
                shared.onStopped.removeAll()
            }
            return (shared.reads.map(\.continuation), Array(shared.clearWaiters.values), shared.onStopped)
        }
        for read in stopped + queued { read.resume(returning: .unavailable(.stopped)) }
        for waiter in waiters + onStopped { waiter.resume() }
    }

    // MARK: One turn

    private func turn(_ batch: Batch) throws(RedisReplicationError) {
        guard let connection, let commands else { return }
        var now = clock.now
        // Every command is owed a reply before it is queued, so a failure midway loses none of them.
        var outgoing: [[[UInt8]]] = []
        for (id, operation) in batch.clears {
            owed.append((.clear(id), now))
            outgoing.append(commands.clear(operation))
        }
        for write in batch.writes {
            owed.append((.write(bytes: write.value.count), now))
            outgoing.append(commands.write(write))
        }
        for read in batch.reads {
            nextReadID += 1
            reads[nextReadID] = read
            owed.append((.read(nextReadID), now))
            outgoing.append(commands.read(read.key))
        }
        let timeout = configuration.connection.commandTimeout
        if let oldest = owed.dropFirst(owedHead).first?.sentAt, now - oldest > timeout {
            throw RedisReplicationError(.timedOut, "Redis did not answer within \(timeout).")
        }
        if outgoing.isEmpty, owedHead == owed.count, now - lastSend >= configuration.connection.pingInterval {
            owed.append((.ping, now))
            outgoing.append(RedisSecondLevelCommands.ping)
        }
        if !outgoing.isEmpty { lastSend = now }
        for command in outgoing { try connection.append(command) }
        let wantsWrite = try !connection.flush()

        var deadline = expireReads(now: now) ?? (lastSend + configuration.connection.pingInterval)
        deliver()
        if let oldest = owed.dropFirst(owedHead).first?.sentAt { deadline = min(deadline, oldest + timeout) }
        now = clock.now
        let wait = deadline > now ? (deadline - now).milliseconds : 0
        let readable = Int16(POLLIN)
        var descriptors = [
            pollfd(fd: loop.wakePipe.reader, events: readable, revents: 0),
            pollfd(
                fd: connection.fileDescriptor, events: readable | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
        ]
        _ = poll(&descriptors, nfds_t(descriptors.count), Int32(wait))
        if descriptors[1].revents & (readable | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
            var lostScripts = false
            for reply in try connection.readAvailable() {
                lostScripts = try settle(reply) || lostScripts
            }
            if lostScripts {
                throw RedisReplicationError(.protocolError, "Redis no longer has the second level's scripts.")
            }
        }
        _ = expireReads(now: clock.now)
        deliver()
    }

    /// Matches a reply with the oldest command owed one. Returns whether Redis had lost the scripts.
    private func settle(_ reply: RedisReply) throws(RedisReplicationError) -> Bool {
        guard owedHead < owed.count else {
            throw RedisReplicationError(.protocolError, "Redis sent a reply nothing asked for.")
        }
        let what = owed[owedHead].what
        owedHead += 1
        if owedHead == owed.count {
            owed.removeAll(keepingCapacity: true)
            owedHead = 0
        } else if owedHead >= 4096, owedHead * 2 >= owed.count {
            owed.removeFirst(owedHead)  // a pipeline that never drains must not grow forever
            owedHead = 0
        }
        let lostScripts = RedisSecondLevelCommands.isNoScript(reply)
        switch what {
        case .read(let id):
            guard let read = reads.removeValue(forKey: id) else { break }  // answered at its deadline already
            let outcome = RedisSecondLevelCommands.readOutcome(reply)
            switch outcome {
            case .hit(let value, _):
                delta.hits += 1
                delta.bytesRead += value.count
            case .miss: delta.misses += 1
            case .unavailable: delta.errors += 1
            }
            if case .unavailable = outcome {
            } else {
                delta.answeredReads += 1
                delta.readLatencyNanoseconds += (clock.now - read.startedAt).nanoseconds
            }
            answered.append((read.continuation, outcome))
        case .write(let bytes):
            answeredWrites += 1
            if reply == .integer(1) {
                delta.writes += 1
                delta.bytesWritten += bytes
            } else {
                delta.droppedWrites += 1  // the namespace moved on, or Redis refused it
            }
        case .clear(let id):
            guard !lostScripts else { break }  // stays queued: re-sent after the scripts are loaded again
            appliedClears.append(id)
            if case .error = reply {} else { delta.clears += 1 }
        case .ping:
            break
        }
        return lostScripts
    }

    /// Answers reads whose deadline passed with `.timeout` (their replies, when they come, are discarded).
    /// Returns the nearest deadline still ahead.
    private func expireReads(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var nearest: ContinuousClock.Instant?
        var expired: [Int] = []
        for (id, read) in reads {
            if read.deadline <= now {
                expired.append(id)
            } else {
                nearest = min(nearest ?? read.deadline, read.deadline)
            }
        }
        for id in expired {
            delta.timeouts += 1
            if let read = reads.removeValue(forKey: id) { answered.append((read.continuation, .unavailable(.timeout))) }
        }
        return nearest
    }
}
