import CacheCore

/// Clears a replica confirms: a clear step a primary acknowledged can be lost when that primary dies before its
/// replica has it, and the promoted replica would then serve what the clear removed. On a primary that has replicas,
/// each step that removes something (a namespace's new generation, the deletion of tagged values, a fleet-wide
/// epoch) is followed by `WAIT 1 <ms>`; the step counts as applied once a replica confirms it. Unconfirmed, it is
/// sent again (each step is idempotent), to the same primary or, after a failover, to the promoted replica.
///
/// Bounded: after ``RedisSecondLevelConfiguration/replicaConfirmationAttempts`` unconfirmed attempts the step is settled as it stands, the error recorded,
/// and the link stops waiting until it reconnects (a replica that is down must not stall its shard's reads behind
/// `WAIT` for good). Taking the tag sets is not confirmed: it deletes nothing a reader could serve, and the
/// deletion that follows it is.
extension RedisSecondLevelWorker {
    /// `WAIT`'s bound: at most 100 ms, and well inside the command timeout.
    var replicaWaitMilliseconds: Int {
        min(100, max(1, configuration.connection.commandTimeout.milliseconds / 4))
    }

    /// Sends one clear step, followed by `WAIT` when `link`'s node has replicas and the step removes something.
    func sendClear(
        _ clear: RedisPendingClear, command: RedisRoutedCommand, on link: RedisNodeLink, now: ContinuousClock.Instant
    ) throws(RedisReplicationError) {
        guard link.hasReplicas, Self.needsReplica(clear.step) else {
            try link.send(RedisOwedCommand(what: .clear(clear), command: command, sentAt: now))
            return
        }
        try link.send(RedisOwedCommand(what: .clearAwaitingReplica(clear), command: command, sentAt: now))
        let wait = [Array("WAIT".utf8), Array("1".utf8), Array(String(replicaWaitMilliseconds).utf8)]
        try link.send(
            RedisOwedCommand(what: .replicaWait(clear), command: RedisRoutedCommand(wait, key: []), sentAt: now))
    }

    private static func needsReplica(_ step: RedisPendingClear.Step) -> Bool {
        if case .takeTags = step { return false }
        return true
    }

    /// What to settle now for a reply of `link`: the reply itself, nothing while a step waits for its `WAIT`, or,
    /// when the `WAIT` answers, the step's held reply as a plain `.clear` (confirmed, or past the limit). An
    /// unconfirmed step is queued to be sent again.
    func heldForReplica(
        _ item: RedisOwedCommand, _ reply: RedisReply, on link: RedisNodeLink
    ) -> (RedisOwedCommand, RedisReply)? {
        switch item.what {
        case .clearAwaitingReplica(let clear):
            var plain = item
            plain.what = .clear(clear)
            link.awaitingReplica.append((plain, reply))
            return nil
        case .replicaWait:
            guard !link.awaitingReplica.isEmpty else { return nil }
            let held = link.awaitingReplica.removeFirst()
            guard case .clear(var clear) = held.item.what, case .integer(let replicas) = reply, replicas < 1,
                !Self.isError(held.reply)
            else { return held }  // confirmed; or the step failed (settled as such); or WAIT not allowed (ACL)
            clear.unconfirmed += 1
            if clear.unconfirmed < configuration.replicaConfirmationAttempts {
                pendingClears.append(clear)
                return nil
            }
            link.hasReplicas = false
            record(RedisReplicationError(.timedOut, "No replica of \(link.node) confirmed a clear."))
            return held
        default:
            return (item, reply)
        }
    }

    private static func isError(_ reply: RedisReply) -> Bool {
        if case .error = reply { return true }
        return false
    }
}

extension RedisSecondLevelCommands {
    /// Whether a `ROLE` reply is a primary's with at least one replica attached (`["master", offset, [replica…]]`).
    static func hasReplicas(_ role: RedisReply) -> Bool {
        guard case .array(let fields) = role, fields.count >= 3, fields[0].text == "master",
            case .array(let replicas) = fields[2]
        else { return false }
        return !replicas.isEmpty
    }
}
