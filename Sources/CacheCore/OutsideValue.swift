import Foundation

/// Checked conversions for numbers that come from outside the process: second-level values and Redis replies,
/// replication payloads, HTTP headers, GraphQL JSON, settings files and the environment.
///
/// Swift traps on a conversion that does not fit (`Int64(1e300)`, `Int(Double.nan)`) and on arithmetic that
/// overflows, and one hand-written value read by every replica would then crash the fleet. Such numbers reach
/// arithmetic only through these functions, which either *refuse* (return nil: the caller treats the value as a
/// miss or a typed error, and counts it) or *clamp* into a range every later computation can take. None of them
/// traps, whatever the input (NaN, ±infinity, ±`greatestFiniteMagnitude`, subnormals, -0).
public enum OutsideValue {
    /// The longest duration the caches represent, in seconds: about 146 years. Far beyond any cache lifetime and far
    /// below `Int64.max` nanoseconds, so instant and duration arithmetic built on it cannot overflow.
    public static let longestSeconds: Double = 4.6e9

    /// ``longestSeconds`` as a duration.
    public static let longestDuration: Duration = .seconds(4_600_000_000)

    /// The earliest wall-clock reading taken as a date: 0001-01-01T00:00:00Z, in seconds since 1970.
    public static let earliestSecondsSince1970: Double = -62_135_596_800

    /// The latest wall-clock reading taken as a date: 10000-01-01T00:00:00Z, in seconds since 1970.
    public static let latestSecondsSince1970: Double = 253_402_300_800

    /// How far ahead of this replica's wall clock another replica's reading may be and still be believed.
    public static let wallClockLead: TimeInterval = 3_600

    /// How far behind this replica's wall clock another replica's reading may be and still be believed: a year, far
    /// longer than a second level keeps anything.
    public static let wallClockLag: TimeInterval = 366 * 86_400

    // MARK: Seconds and durations

    /// A number of seconds usable as a lifetime: nil for NaN, infinities and negative values; clamped to
    /// ``longestSeconds``; -0 becomes 0.
    public static func seconds(_ seconds: Double) -> Double? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        return min(seconds + 0, longestSeconds)
    }

    /// A number of seconds forced into `0...longestSeconds`: NaN and negative values are 0, +infinity is
    /// ``longestSeconds``. For ages and remaining lifetimes, where "none" and "practically never" are the answers.
    public static func clampedSeconds(_ seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }
        return min(seconds, longestSeconds)
    }

    /// `seconds` as a duration (nanosecond precision): nil for NaN, infinities and negative values; clamped to
    /// ``longestDuration``.
    public static func duration(seconds: Double) -> Duration? {
        self.seconds(seconds).map(durationOfCheckedSeconds)
    }

    /// `seconds` as a duration in `0...longestDuration`, as ``clampedSeconds(_:)`` clamps.
    public static func clampedDuration(seconds: Double) -> Duration {
        durationOfCheckedSeconds(clampedSeconds(seconds))
    }

    /// Whole nanoseconds of `seconds`: nil for NaN, infinities and values whose nanoseconds do not fit in `Int64`
    /// (negative values are kept).
    public static func nanoseconds(seconds: Double) -> Int64? {
        guard seconds.isFinite else { return nil }
        return int64(rounding: seconds * 1_000_000_000)
    }

    /// Whole nanoseconds of `seconds`, saturating at `Int64.min` / `Int64.max`; NaN is 0.
    public static func clampedNanoseconds(seconds: Double) -> Int64 {
        if seconds.isNaN { return 0 }
        return nanoseconds(seconds: seconds) ?? (seconds < 0 ? .min : .max)
    }

    /// Whole nanoseconds of a duration, saturating instead of trapping for durations beyond ±292 years.
    public static func nanoseconds(of duration: Duration) -> Int64 {
        duration.cacheNanoseconds
    }

    /// `seconds` after `date`, clamped as ``clampedSeconds(_:)`` clamps: never before `date`, never past what a
    /// `Date` and a wall-clock reading hold.
    public static func date(_ date: Date, advancedBy seconds: Double) -> Date {
        date.addingTimeInterval(clampedSeconds(seconds))
    }

    // MARK: Integers

    /// `value` rounded toward zero as an `Int`: nil for NaN, infinities and values outside `Int`'s range.
    public static func int(_ value: Double) -> Int? {
        int64(rounding: value.rounded(.towardZero)).map { Int($0) }
    }

    /// `value` rounded toward zero as an `Int`, saturating at `Int.min` / `Int.max`; NaN is 0.
    public static func clampedInt(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        return int(value) ?? (value < 0 ? .min : .max)
    }

    /// A count or size read from outside (a length field, a reply's element count): nil when negative or above
    /// `limit`.
    public static func count<Value: BinaryInteger>(_ value: Value, atMost limit: Int) -> Int? {
        guard value >= 0, let count = Int(exactly: value), count <= limit else { return nil }
        return count
    }

    // MARK: Wall-clock readings

    /// A wall-clock reading in seconds since 1970 as a date: nil for NaN, infinities and readings outside years
    /// 1 to 9999 (``earliestSecondsSince1970`` ..< ``latestSecondsSince1970``).
    public static func date(secondsSince1970 seconds: Double) -> Date? {
        guard seconds.isFinite, seconds >= earliestSecondsSince1970, seconds < latestSecondsSince1970 else {
            return nil
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Whether another replica's wall-clock reading can be believed on this one: no more than ``wallClockLead``
    /// ahead of `now` and no more than ``wallClockLag`` behind it. A reading outside is a wrong clock or a forged
    /// value, and what it dates is refused.
    public static func isPlausible(_ reading: Date, near now: Date) -> Bool {
        let offset = reading.timeIntervalSince(now)
        return offset.isFinite && offset <= wallClockLead && offset >= -wallClockLag
    }

    /// The seconds from `earlier` to `later`, clamped as ``clampedSeconds(_:)`` clamps.
    public static func clampedSeconds(from earlier: Date, to later: Date) -> Double {
        clampedSeconds(later.timeIntervalSince(earlier))
    }

    // MARK: Private

    /// `value` rounded to the nearest whole number as an `Int64`; nil for NaN and values that do not fit.
    private static func int64(rounding value: Double) -> Int64? {
        let rounded = value.rounded()
        guard rounded >= -0x1p63, rounded < 0x1p63 else { return nil }
        return Int64(rounded)
    }

    /// Seconds already within `0...longestSeconds` as a duration.
    private static func durationOfCheckedSeconds(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1_000_000_000).rounded()))
    }
}
