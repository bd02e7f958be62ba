import CacheCore

/// Lending one server's idle connection to callers while the loop's thread sleeps (see ``RedisSecondLevelLane``).
extension RedisSecondLevelWorker {
    /// Stands for the command of a read a caller sent: its reply is settled by the owed entry alone (one server
    /// redirects nothing).
    private static let sentByCaller = RedisRoutedCommand(request: [], slot: 0)

    /// The link callers may write reads on while this thread sleeps: one server's, connected, owing nothing, with
    /// nothing left to write, and no clear waiting to be sent (a clear queued before a read goes out before it).
    func lendableLink(_ polled: [RedisNodeLink]) -> RedisNodeLink? {
        guard !isCluster, polled.count == 1, let link = polled.first, link.isIdle, !link.wantsWrite,
            pendingClears.isEmpty, commands != nil, epoch != nil
        else { return nil }
        return link
    }

    /// Lends the link's connection until ``takeBack(_:)``; this thread does not touch it meanwhile.
    func lend(_ link: RedisNodeLink) {
        guard let commands, let epoch, let connection = link.connection else { return }
        isLent = true
        let lane = RedisSecondLevelLane(connection: connection, commands: commands, epoch: epoch)
        loop.shared.withLock { $0.lane = lane }
    }

    /// Takes the connection back (waiting for a caller that holds it: its wait is bounded by
    /// ``RedisSecondLevelConfiguration/callerWait``, and it wakes this thread when done), owes each read a caller
    /// handed over its reply in the order they went out, and drops the connection if it failed under a caller.
    func takeBack(_ link: RedisNodeLink) {
        var taken = returnedLane()
        while taken == nil {
            loop.wakePipe.drain()
            taken = returnedLane()
            if taken == nil { loop.wakePipe.wait(milliseconds: 1) }
            wakePipeMayHoldBytes = true
        }
        guard let taken, isLent, let commands else { return }
        isLent = false
        if let named = taken.epoch { epoch = named }
        for handed in taken.reads {
            nextReadID += 1
            reads[nextReadID] = handed.read
            let sentAt = handed.read.startedAt
            for _ in 0..<max(0, commands.repliesPerRead - 1 - handed.received.count) {
                link.owe(RedisOwedCommand(what: .readPart, command: Self.sentByCaller, sentAt: sentAt))
            }
            let last = RedisSecondLevelOwed.read(nextReadID, epoch: handed.epoch, earlier: handed.received)
            link.owe(RedisOwedCommand(what: last, command: Self.sentByCaller, sentAt: sentAt))
        }
        do throws(RedisReplicationError) {
            try link.flush()
        } catch {
            disconnect(link, error)
            return
        }
        if let failure = taken.failure { disconnect(link, failure) }
    }

    /// What callers left with the lane, once none holds it; nil (and the lane asked back) while one does.
    private func returnedLane() -> (
        reads: [RedisSecondLevelLoop.LaneRead], epoch: String?, failure: RedisReplicationError?
    )? {
        loop.shared.withLock { shared in
            guard !shared.laneInUse else {
                shared.laneWanted = true
                return nil
            }
            shared.lane = nil
            shared.laneWanted = false
            defer {
                shared.laneReads.removeAll(keepingCapacity: true)
                shared.laneEpoch = nil
                shared.laneFailure = nil
            }
            return (shared.laneReads, shared.laneEpoch, shared.laneFailure)
        }
    }
}
