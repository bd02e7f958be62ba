import CacheCore

/// The caller's side of the lane (see ``RedisSecondLevelLane``): taking it, settling the reply it brought, and
/// giving it back or handing a read over to the loop's thread.
extension RedisSecondLevelLoop {
    /// The lent connection, now held by this caller; nil when the loop's thread is awake, work is queued for it, or
    /// ``RedisSecondLevelConfiguration/callerWait`` is zero.
    func checkOutLane() -> RedisSecondLevelLane? {
        guard configuration.callerWait > .zero else { return nil }
        return shared.withLock { shared in
            guard let lane = shared.lane, !shared.stopRequested, shared.reads.isEmpty, shared.writes.isEmpty,
                shared.clears.isEmpty
            else { return nil }
            shared.lane = nil
            shared.laneInUse = true
            shared.laneReadCount += 1
            return lane
        }
    }

    /// Answers the read with what its replies said, counts it as the loop's thread would, and gives the lane back
    /// (under the epoch the replies named). A lane is lent on one server only, whose reads run no script: lost
    /// scripts are noticed by the loop's thread, at the next write or clear.
    func settle(
        _ answer: RedisSecondLevelCommands.ReadAnswer, on lane: RedisSecondLevelLane,
        startedAt: ContinuousClock.Instant
    ) -> SecondLevelRead {
        let latency = clock.now - startedAt
        let wakeLoop = shared.withLock { shared -> Bool in
            shared.statistics.record(answer.read, latency: latency)
            shared.laneAnsweredCount += 1
            if let named = answer.named { shared.laneEpoch = named }
            return Self.giveBack(answer.named.map(lane.under) ?? lane, in: &shared)
        }
        if wakeLoop { wake() }
        return answer.read
    }

    /// The connection failed under the caller with no reply owed: the read fails, the loop's thread drops it.
    func give(back lane: RedisSecondLevelLane, failing failure: RedisReplicationError) -> SecondLevelRead {
        shared.withLock { shared in
            shared.statistics.errors += 1
            shared.laneFailure = failure
            _ = Self.giveBack(lane, in: &shared)
        }
        wake()
        return .unavailable(.error)
    }

    /// The reply did not come within the caller's wait (or the connection failed): the loop's thread takes the
    /// connection back and owes the read its reply; its deadline is kept there.
    func handOver(_ read: LaneRead, _ failure: RedisReplicationError?) {
        shared.withLock { shared in
            shared.laneReads.append(read)
            shared.laneHandedOverCount += 1
            if let failure { shared.laneFailure = failure }
            shared.laneInUse = false
            shared.wakePending = true
        }
        wake()
    }

    /// Lends the lane again unless the loop's thread wants it back, it failed, or the store stops. Returns whether
    /// the loop's thread must be woken (it waits for the lane, or must drop the connection).
    private static func giveBack(_ lane: RedisSecondLevelLane, in shared: inout Shared) -> Bool {
        shared.laneInUse = false
        guard !shared.laneWanted, shared.laneFailure == nil, !shared.stopRequested else {
            return shared.laneWanted || shared.laneFailure != nil
        }
        shared.lane = lane
        return false
    }
}
