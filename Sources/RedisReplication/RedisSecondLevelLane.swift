import CacheCore

/// One server's connection, lent by the loop's thread to callers while it sleeps in poll() with the link idle: a
/// read then writes its own command on the caller's thread, under the loop's lock, and wakes nobody. The reply wakes
/// the loop's thread (it polls the connection), which takes the connection back, owes each lent read its reply in
/// the order the commands went out, and answers them as it answers its own.
///
/// A read's deadline still holds: the loop's thread wakes by ``sleepsUntil`` at the latest, and a caller whose
/// deadline comes before it wakes the loop's thread (after its command is out, so the wake-up overlaps the round
/// trip).
///
/// `@unchecked Sendable`: the connection is not thread-safe, and is never used by two threads at once. Callers use
/// it only while this value is in the loop's shared state, under its lock; the loop's thread lends it by putting
/// this value there under that lock, right before poll(), does not touch the connection while it is lent (poll()
/// watches only its descriptor), and takes it back by removing the value under the same lock before any other use.
struct RedisSecondLevelLane: @unchecked Sendable {
    let connection: RedisConnection
    let commands: RedisSecondLevelCommands
    /// The epoch the reads' replies are settled under when they name none (one server's script names it).
    let epoch: String
    /// When the loop's thread wakes at the latest if nothing happens.
    let sleepsUntil: ContinuousClock.Instant

    /// Writes the read's command. False when the socket did not take all of it or failed: the loop's thread must
    /// then be woken to finish (or fail) it, and the lane must not be used again.
    func send(_ key: SecondLevelKey) -> Bool {
        do throws(RedisReplicationError) {
            try connection.append(commands.readArguments(key, epoch: epoch))
            return try connection.flush()
        } catch {
            return false
        }
    }
}
