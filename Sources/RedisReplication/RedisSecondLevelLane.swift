import CacheCore

/// One server's connection, lent by the loop's thread to callers while it sleeps in poll() with the link idle: a
/// read then makes its whole round trip on the caller's thread, as a blocking client would (write, wait for the
/// reply, parse it), and wakes nobody. One caller holds the lane at a time; others queue for the loop's thread.
///
/// The caller waits at most ``RedisSecondLevelConfiguration/callerWait`` (and never past its read's deadline). A
/// reply that has not come by then, or a connection that failed, is handed to the loop's thread, which takes the
/// connection back, owes the read its reply and answers it as it answers its own.
///
/// `@unchecked Sendable`: the connection is not thread-safe, and is never used by two threads at once. The loop's
/// thread lends it by putting this value in its shared state under its lock, right before poll(), and does not
/// touch the connection while it is lent (poll() watches only its descriptor, for a closed connection). A caller
/// takes the value out of the shared state under that lock before using the connection, and puts it back (or hands
/// it over) under the same lock when done; the loop's thread takes it back only while no caller holds it.
struct RedisSecondLevelLane: @unchecked Sendable {
    /// How a round trip on the caller's thread ended.
    enum RoundTrip {
        /// What the read's replies say, all of them read (see ``RedisSecondLevelCommands/repliesPerRead``).
        case answered(RedisSecondLevelCommands.ReadAnswer)
        /// The commands are out (or partly out) and replies still owed: the loop's thread takes them over, with the
        /// replies that came (`received`) and the epoch the value key was named under. With a failure, the
        /// connection is broken and the loop's thread drops it.
        case owed(RedisReplicationError?, received: [RedisReply], sentUnder: String)
        /// The connection is unusable and the read has no reply to wait for (a reply nothing asked for).
        case failed(RedisReplicationError)
    }

    let connection: RedisConnection
    let commands: RedisSecondLevelCommands
    /// The epoch the reads' value keys are named under; the replies say whether the fleet still uses it.
    let epoch: String

    /// The same lane under the epoch a reply named.
    func under(_ epoch: String) -> RedisSecondLevelLane {
        RedisSecondLevelLane(connection: connection, commands: commands, epoch: epoch)
    }

    /// Writes the read's commands and waits on this thread until all their replies came, or `limit`. When the
    /// replies say the fleet moved to another epoch since this store last read it (another replica's fleet-wide
    /// clear), the read is made again under that epoch, once, so a value written after the clear is found now.
    func roundTrip(_ key: SecondLevelKey, waitingUntil limit: ContinuousClock.Instant) -> RoundTrip {
        let first = attempt(key, under: epoch, waitingUntil: limit)
        guard case .answered(let answer) = first, answer.moved, let moved = answer.named else { return first }
        return attempt(key, under: moved, waitingUntil: limit)
    }

    private func attempt(_ key: SecondLevelKey, under epoch: String, waitingUntil limit: ContinuousClock.Instant)
        -> RoundTrip
    {
        var received: [RedisReply] = []
        do throws(RedisReplicationError) {
            connection.append { commands.appendRead(key, epoch: epoch, to: &$0) }
            guard try connection.flush() else { return .owed(nil, received: received, sentUnder: epoch) }
            let expected = commands.repliesPerRead
            while true {
                if !connection.hasBufferedInput {
                    guard RedisSocket.waitReadable(connection.fileDescriptor, until: limit) else {
                        return .owed(nil, received: received, sentUnder: epoch)
                    }
                }
                let replies = try connection.readAvailable()
                if received.isEmpty { received = replies } else { received += replies }
                guard received.count >= expected else { continue }
                guard received.count == expected else {
                    return .failed(RedisReplicationError(.protocolError, "Redis sent a reply nothing asked for."))
                }
                return .answered(RedisSecondLevelCommands.readOutcomeAndEpoch(received, epoch: epoch))
            }
        } catch {
            return .owed(error, received: received, sentUnder: epoch)
        }
    }
}
