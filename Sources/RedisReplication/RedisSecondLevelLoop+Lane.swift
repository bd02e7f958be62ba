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

    /// Answers the read with the reply it waited for, counts it as the loop's thread would, and gives the lane back
    /// (under the epoch the reply named).
    func settle(
        _ replies: [RedisReply], sentUnder epoch: String, on lane: RedisSecondLevelLane,
        startedAt: ContinuousClock.Instant
    ) -> SecondLevelRead {
        let (outcome, named) = RedisSecondLevelCommands.readOutcomeAndEpoch(replies, epoch: epoch)
        let lostScripts = replies.contains(where: RedisSecondLevelCommands.isNoScript)
        let elapsed = (clock.now - startedAt).nanoseconds
        let wakeLoop = shared.withLock { shared -> Bool in
            switch outcome {
            case .hit(let value, _):
                shared.statistics.hits += 1
                shared.statistics.bytesRead += value.count
            case .miss: shared.statistics.misses += 1
            case .unavailable: shared.statistics.errors += 1
            }
            if case .unavailable = outcome {
            } else {
                shared.statistics.answeredReads += 1
                shared.statistics.readLatencyNanoseconds += elapsed
            }
            shared.laneAnsweredCount += 1
            if let named { shared.laneEpoch = named }
            if lostScripts {
                shared.laneFailure = RedisReplicationError(
                    .protocolError, "Redis no longer has the second level's scripts.")
            }
            return Self.giveBack(named.map(lane.under) ?? lane, in: &shared)
        }
        if wakeLoop { wake() }
        return outcome
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
