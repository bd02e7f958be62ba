import CacheCore

/// Lending one server's idle connection to callers while the loop's thread sleeps (see ``RedisSecondLevelLane``).
extension RedisSecondLevelWorker {
    /// How long after callers last sent reads on a lane the loop's thread still wakes by their deadline span, so the
    /// next read need not wake it.
    static let laneActivity = Duration.seconds(1)

    /// Stands for the command of a read a caller sent: its reply is settled by the owed entry alone (one server
    /// redirects nothing).
    private static let sentByCaller = RedisRoutedCommand([], key: [])

    /// The link callers may write reads on while this thread sleeps: one server's, connected, owing nothing, with
    /// nothing left to write, and no clear waiting to be sent (a clear queued before a read goes out before it).
    func lendableLink(_ polled: [RedisNodeLink]) -> RedisNodeLink? {
        guard !isCluster, polled.count == 1, let link = polled.first, link.isIdle, !link.wantsWrite,
            pendingClears.isEmpty, commands != nil, epoch != nil
        else { return nil }
        return link
    }

    /// Lends the link's connection until ``takeBack(_:)``; this thread does not touch it meanwhile.
    func lend(_ link: RedisNodeLink, sleepsUntil: ContinuousClock.Instant) {
        guard let commands, let epoch, let connection = link.connection else { return }
        lentEpoch = epoch
        let lane = RedisSecondLevelLane(
            connection: connection, commands: commands, epoch: epoch, sleepsUntil: sleepsUntil)
        loop.shared.withLock { $0.lane = lane }
    }

    /// Takes the connection back and owes each read a caller sent its reply, in the order they went out; finishes
    /// (or fails) what a caller's write left on the connection.
    func takeBack(_ link: RedisNodeLink) {
        let sent = loop.shared.withLock { shared in
            shared.lane = nil
            defer { shared.laneReads.removeAll(keepingCapacity: true) }
            return shared.laneReads
        }
        guard let epoch = lentEpoch else { return }
        lentEpoch = nil
        guard !sent.isEmpty else { return }
        lastLaneRead = clock.now
        for read in sent {
            nextReadID += 1
            reads[nextReadID] = read
            link.owe(
                RedisOwedCommand(
                    what: .read(nextReadID, epoch: epoch), command: Self.sentByCaller, sentAt: read.startedAt))
            laneDeadlineSpan = read.deadline - read.startedAt
        }
        do throws(RedisReplicationError) {
            try link.flush()
        } catch {
            disconnect(link, error)
        }
    }
}
