import Foundation
import Synchronization

/// Where the store reads time from; injected so that expiry is tested by moving a clock, never by sleeping.
public protocol CacheClock: Sendable {
    /// Monotonic time: decides freshness, age and purges.
    func now() -> CacheInstant
    /// Calendar time: recorded beside each entry for export and display only.
    func wallClockNow() -> Date
}

/// The production clock: `CLOCK_MONOTONIC` for freshness, `Date()` for the wall clock.
public struct SystemCacheClock: CacheClock {
    public init() {}

    public func now() -> CacheInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return CacheInstant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    public func wallClockNow() -> Date {
        Date()
    }
}

/// A clock that only moves when told to.
///
/// Public so that users can test their own expiry behaviour (a BFF's stale-while-revalidate grace, a settings
/// change) the same way this package does: store, `advance(seconds:)`, look up again.
public final class ManualCacheClock: CacheClock {
    private struct Reading {
        var instant: CacheInstant
        var date: Date
    }

    private let reading: Mutex<Reading>

    /// Starts at `instant` on the monotonic line and at `date` on the wall clock; both move together.
    public init(
        instant: CacheInstant = CacheInstant(nanoseconds: 1_000_000_000),
        date: Date = Date(timeIntervalSince1970: 1_700_000_000)
    ) {
        reading = Mutex(Reading(instant: instant, date: date))
    }

    public func now() -> CacheInstant {
        reading.withLock { $0.instant }
    }

    public func wallClockNow() -> Date {
        reading.withLock { $0.date }
    }

    /// Moves both clocks forward (or backward for a negative duration, to test clock oddities).
    public func advance(by duration: Duration) {
        reading.withLock { reading in
            reading.instant = reading.instant.advanced(by: duration)
            reading.date = reading.date.addingTimeInterval(Double(duration.cacheNanoseconds) / 1_000_000_000)
        }
    }

    /// Moves both clocks forward by `seconds`, the unit timeouts are written in.
    public func advance(seconds: Double) {
        advance(by: .nanoseconds(OutsideValue.clampedNanoseconds(seconds: seconds)))
    }
}
