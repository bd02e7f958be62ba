import CacheCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One turn of the loop: send, wait, settle.
extension RedisSecondLevelWorker {
    /// The peer closed its side (`POLLRDHUP` where the system has it; `POLLHUP` and `POLLERR` are always reported).
    #if os(Linux)
        static let peerClosed = Int16(0x2000)
    #else
        static let peerClosed = Int16(0)
    #endif

    func turn(_ batch: Batch) {
        guard let commands, let epoch else { return }
        var now = clock.now
        for (id, operation) in batch.clears {
            pendingClears.append(RedisPendingClear(ids: [id], step: Self.firstStep(of: operation)))
        }
        collapsePendingClears()
        sendPendingClears(commands, epoch: epoch, now: now)
        for write in batch.writes {
            guard let command = commands.write(write) else {
                answeredWrites += 1
                delta.droppedWrites += 1
                continue
            }
            dispatch(RedisOwedCommand(what: .write(bytes: write.value.count), command: command, sentAt: now))
        }
        for read in batch.reads { send(read, commands, epoch: epoch, now: now) }
        let interval = configuration.connection.pingInterval
        if !epochPollOutstanding, now - lastEpochPoll >= interval, connectedLink(for: epochSlot) != nil {
            epochPollOutstanding = true
            lastEpochPoll = now
            dispatch(RedisOwedCommand(what: .epoch, command: commands.readEpoch(), sentAt: now))
        }
        let timeout = configuration.connection.commandTimeout
        var deadline = expireReads(now: now) ?? (now + interval)
        for link in links.values where link.isConnected {
            if let oldest = link.oldestSentAt, now - oldest > timeout {
                disconnect(
                    link, RedisReplicationError(.timedOut, "Redis at \(link.node) did not answer within \(timeout)."))
                continue
            }
            if link.isIdle, now - link.lastSend >= interval {
                dispatchPing(link, now: now)
            }
            do throws(RedisReplicationError) {
                try link.flush()
            } catch {
                disconnect(link, error)
                continue
            }
            // The next health check is due only on an idle link (a busy one is checked by its replies' timeout).
            if link.isIdle { deadline = min(deadline, link.lastSend + interval) }
            if let oldest = link.oldestSentAt { deadline = min(deadline, oldest + timeout) }
        }
        if !epochPollOutstanding, connectedLink(for: epochSlot) != nil {
            deadline = min(deadline, lastEpochPoll + interval)
        }
        deliver()
        let polled = links.values.filter(\.isConnected)
        let lendable = lendableLink(polled)
        now = clock.now
        let wait = deadline > now ? (deadline - now).milliseconds : 0
        let readable = Int16(POLLIN)
        var descriptors = [pollfd(fd: loop.wakePipe.reader, events: readable, revents: 0)]
        for link in polled {
            guard let connection = link.connection else { continue }
            // A lent connection's replies are the callers' to read: only its closing wakes this thread.
            let events = link === lendable ? Self.peerClosed : readable | (link.wantsWrite ? Int16(POLLOUT) : 0)
            descriptors.append(pollfd(fd: connection.fileDescriptor, events: events, revents: 0))
        }
        if let lendable { lend(lendable) }
        _ = poll(&descriptors, nfds_t(descriptors.count), Int32(wait))
        if let lendable { takeBack(lendable) }
        if descriptors[0].revents != 0 { wakePipeMayHoldBytes = true }
        let settle = readable | Self.peerClosed | Int16(POLLHUP) | Int16(POLLERR)
        for (index, link) in polled.enumerated() where link.isConnected && descriptors[index + 1].revents & settle != 0
        {
            settleReplies(of: link)
        }
        for link in polled where link.isConnected && link.wantsWrite {
            do throws(RedisReplicationError) { try link.flush() } catch { disconnect(link, error) }
        }
        _ = expireReads(now: clock.now)
        deliver()
    }

    private func dispatchPing(_ link: RedisNodeLink, now: ContinuousClock.Instant) {
        do throws(RedisReplicationError) {
            try link.send(
                RedisOwedCommand(
                    what: .ping, command: RedisRoutedCommand(RedisSecondLevelCommands.ping, key: []), sentAt: now))
        } catch {
            disconnect(link, error)
        }
    }

    static func firstStep(of operation: RedisSecondLevelLoop.ClearOperation) -> RedisPendingClear.Step {
        switch operation {
        case .namespace(let namespace): return .namespace(namespace)
        case .tags(let tags, let namespace):
            // The clear's own pending set: unique in the fleet, so a clear sent again finds what it took.
            let pending = (0..<2).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()
            return .takeTags(tags, namespace, pending: pending)
        case .all: return .all
        }
    }

    /// Beyond ``RedisSecondLevelConfiguration/clearQueueLimit`` pending clears, they become one fleet-wide clear,
    /// which removes at least what each of them would have.
    private func collapsePendingClears() {
        guard pendingClears.count > configuration.clearQueueLimit else { return }
        pendingClears = [RedisPendingClear(ids: pendingClears.flatMap(\.ids), step: .all)]
    }

    /// Sends every pending clear whose node is connected; the others wait for it.
    private func sendPendingClears(_ commands: RedisSecondLevelCommands, epoch: String, now: ContinuousClock.Instant) {
        let pending = pendingClears
        pendingClears.removeAll()
        for clear in pending {
            let command: RedisRoutedCommand
            switch clear.step {
            case .namespace(let namespace):
                command = commands.clearNamespace(namespace, recovery: RedisSecondLevelCommands.recoveryValue())
            case .takeTags(let tags, let namespace, let pending):
                command = commands.takeTags(tags, in: namespace, epoch: epoch, pending: pending)
            case .deleteValues(let names, let namespace, let epoch, let pending):
                command = commands.deleteValues(names, in: namespace, epoch: epoch, pending: pending)
            case .all: command = commands.moveEpoch(recovery: RedisSecondLevelCommands.recoveryValue())
            }
            guard let link = connectedLink(for: command.slot) else {
                pendingClears.append(clear)
                continue
            }
            do throws(RedisReplicationError) {
                try sendClear(clear, command: command, on: link, now: now)
            } catch {
                disconnect(link, error)
            }
        }
    }

    /// Sends a read's commands under `epoch`, each owed its reply (the last one as the read).
    private func send(
        _ read: RedisSecondLevelLoop.Read, _ commands: RedisSecondLevelCommands, epoch: String,
        now: ContinuousClock.Instant
    ) {
        nextReadID += 1
        reads[nextReadID] = read
        let sent = commands.read(read.key, epoch: epoch)
        for (index, command) in sent.enumerated() {
            let last = index == sent.count - 1
            let what: RedisSecondLevelOwed = last ? .read(nextReadID, epoch: epoch, earlier: []) : .readPart
            dispatch(RedisOwedCommand(what: what, command: command, sentAt: now))
        }
    }

    /// Reads what `link` holds and settles each reply; a protocol failure or lost scripts drop the link. Reads whose
    /// replies named a newer epoch go out again under it (once), as a read on the lane does.
    private func settleReplies(of link: RedisNodeLink) {
        do throws(RedisReplicationError) {
            var lostScripts = false
            var again: [RedisSecondLevelLoop.Read] = []
            for (owed, received) in try link.replies() {
                guard let (item, reply) = heldForReplica(owed, received, on: link) else { continue }
                if redirect(item, reply, from: link) { continue }
                lostScripts = settle(item, reply, again: &again) || lostScripts
            }
            if let commands, let epoch, !again.isEmpty {
                for read in again { send(read, commands, epoch: epoch, now: clock.now) }
                try link.flush()
            }
            if lostScripts {
                throw RedisReplicationError(.protocolError, "Redis no longer has the second level's scripts.")
            }
        } catch {
            disconnect(link, error)
        }
    }

    /// Settles one reply; a read whose replies named a moved epoch, not made again yet, goes into `again` instead
    /// of being answered. Returns whether Redis had lost the scripts.
    private func settle(_ item: RedisOwedCommand, _ reply: RedisReply, again: inout [RedisSecondLevelLoop.Read])
        -> Bool
    {
        let lostScripts = RedisSecondLevelCommands.isNoScript(reply)
        switch item.what {
        case .read(let id, let sentUnder, let earlier):
            guard var read = reads.removeValue(forKey: id) else { break }  // answered at its deadline already
            let answer = RedisSecondLevelCommands.readOutcomeAndEpoch(
                parts: earlier[...], last: reply, epoch: sentUnder)
            if let named = answer.named {
                epoch = named  // one server: the epoch key's value as the read found it
            }
            if answer.moved, !read.retriedUnderMovedEpoch {
                read.retriedUnderMovedEpoch = true
                again.append(read)
                break
            }
            delta.record(answer.read, latency: clock.now - read.startedAt)
            answered.append((read.continuation, answer.read))
        case .write(let bytes):
            answeredWrites += 1
            if reply == .integer(1) {
                delta.writes += 1
                delta.bytesWritten += bytes
            } else {
                delta.droppedWrites += 1  // the namespace moved on, or Redis refused it
            }
        case .clear(let clear):
            settle(clear, reply, lostScripts: lostScripts)
        case .epoch:
            epochPollOutstanding = false
            if let read = RedisSecondLevelCommands.epoch(in: reply) { epoch = read }
        case .ping, .asking, .readPart, .clearAwaitingReplica, .replicaWait:
            break  // the last two are held by heldForReplica and settled as a `.clear`
        }
        return lostScripts
    }

    private func settle(_ clear: RedisPendingClear, _ reply: RedisReply, lostScripts: Bool) {
        if lostScripts || Self.isTransient(reply) {
            pendingClears.append(clear)  // sent again (after the scripts are loaded again, or the slot settled)
            return
        }
        switch clear.step {
        case .takeTags(_, let namespace, let pending):
            if case .array(let parts) = reply, parts.count == 2, case .array(let items) = parts[1],
                let epoch = RedisSecondLevelCommands.epoch(in: parts[0]).flatMap({ parts[0] == .null ? nil : $0 })
                    ?? epoch
            {
                let names = items.compactMap { item -> [UInt8]? in
                    if case .string(let name) = item { return name }
                    return nil
                }
                if !names.isEmpty {
                    pendingClears.insert(
                        RedisPendingClear(
                            ids: clear.ids, step: .deleteValues(names, namespace, epoch: epoch, pending: pending)),
                        at: 0)
                    return
                }
            }
        case .all:
            if let moved = RedisSecondLevelCommands.epoch(in: reply), case .integer = reply { epoch = moved }
        case .namespace, .deleteValues:
            break
        }
        appliedClears.append(contentsOf: clear.ids)
        if case .error = reply {} else { delta.clears += 1 }
    }

    /// Errors a cluster answers while a slot moves or the cluster heals: the command is worth sending again.
    static func isTransient(_ reply: RedisReply) -> Bool {
        guard case .error(let text) = reply else { return false }
        return text.hasPrefix("TRYAGAIN") || text.hasPrefix("CLUSTERDOWN") || text.hasPrefix("LOADING")
            || text.hasPrefix("MOVED") || text.hasPrefix("ASK")
    }

    /// Answers reads whose deadline passed with `.timeout` (their replies, when they come, are discarded).
    /// Returns the nearest deadline still ahead.
    func expireReads(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
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
