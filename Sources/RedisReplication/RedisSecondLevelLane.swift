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
        /// The read's reply.
        case answered(RedisReply)
        /// The command is out (or partly out) and its reply still owed: the loop's thread takes it over. With a
        /// failure, the connection is broken and the loop's thread drops it.
        case owed(RedisReplicationError?)
        /// The connection is unusable and the read has no reply to wait for (a reply nothing asked for).
        case failed(RedisReplicationError)
    }

    let connection: RedisConnection
    let commands: RedisSecondLevelCommands
    /// The epoch the reads' replies are settled under when they name none (one server's script names it).
    let epoch: String

    /// The same lane under the epoch a reply named.
    func under(_ epoch: String) -> RedisSecondLevelLane {
        RedisSecondLevelLane(connection: connection, commands: commands, epoch: epoch)
    }

    /// Writes the read's command and waits on this thread until its reply or `limit`.
    func roundTrip(_ key: SecondLevelKey, waitingUntil limit: ContinuousClock.Instant) -> RoundTrip {
        do throws(RedisReplicationError) {
            try connection.append(commands.readArguments(key, epoch: epoch))
            guard try connection.flush() else { return .owed(nil) }
            while true {
                if !connection.hasBufferedInput {
                    guard RedisSocket.waitReadable(connection.fileDescriptor, until: limit) else { return .owed(nil) }
                }
                let replies = try connection.readAvailable()
                guard let reply = replies.first else { continue }
                guard replies.count == 1 else {
                    return .failed(RedisReplicationError(.protocolError, "Redis sent a reply nothing asked for."))
                }
                return .answered(reply)
            }
        } catch {
            return .owed(error)
        }
    }
}
