/// The reconnection delay every Redis loop uses: ±20 % jitter, so a fleet does not reconnect in lockstep, and the
/// delay doubled up to a maximum for the attempt after.
enum RedisBackoff {
    /// The delay before the next attempt (`backoff` with jitter); `backoff` doubles, up to `maximum`.
    static func advance(_ backoff: inout Duration, maximum: Duration) -> Duration {
        let delay = backoff * Double.random(in: 0.8...1.2)
        backoff = min(backoff * 2, maximum)
        return delay
    }
}
