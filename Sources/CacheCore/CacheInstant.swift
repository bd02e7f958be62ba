/// A point on the store's monotonic time line, in nanoseconds.
///
/// Expiry must not jump when the wall clock is corrected (NTP, leap seconds, an operator fixing the date), so
/// freshness is decided on a monotonic clock; the wall-clock date of an entry is kept beside it for export only.
public struct CacheInstant: Comparable, Hashable, Sendable {
    /// Nanoseconds since an arbitrary origin fixed by the clock (boot time for `SystemCacheClock`).
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The instant `duration` later (earlier when negative), saturating at the ends of the time line instead of
    /// wrapping round to the other end.
    public func advanced(by duration: Duration) -> CacheInstant {
        advanced(byNanoseconds: OutsideValue.nanoseconds(of: duration))
    }

    /// The instant `step` nanoseconds later (earlier when negative), saturating like ``advanced(by:)``: for a step
    /// converted once and used many times.
    public func advanced(byNanoseconds step: Int64) -> CacheInstant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(step)
        return CacheInstant(nanoseconds: overflow ? (step < 0 ? .min : .max) : sum)
    }

    /// The time from `earlier` to this instant.
    public func duration(since earlier: CacheInstant) -> Duration {
        .nanoseconds(nanoseconds(since: earlier))
    }

    /// The time from `earlier` to this instant, in seconds: the unit the seeds' timeouts are written in.
    public func seconds(since earlier: CacheInstant) -> Double {
        Double(nanoseconds(since: earlier)) / 1_000_000_000
    }

    /// Nanoseconds from `earlier` to this instant, saturating instead of wrapping round.
    private func nanoseconds(since earlier: CacheInstant) -> Int64 {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        guard overflow else { return difference }
        return earlier.nanoseconds < 0 ? .max : .min
    }

    public static func < (lhs: CacheInstant, rhs: CacheInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }
}

extension Duration {
    /// Whole nanoseconds, saturating instead of trapping for durations beyond ±292 years.
    var cacheNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else {
            return seconds < 0 ? .min : .max
        }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !sumOverflow else {
            return seconds < 0 ? .min : .max
        }
        return sum
    }
}
