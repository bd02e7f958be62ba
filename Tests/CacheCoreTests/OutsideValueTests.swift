import CacheCore
import Foundation
import Testing

@Suite("Checked conversions of outside values: refuse or clamp, never trap")
struct OutsideValueTests {
    static let awkward: [Double] = [
        .nan, -.nan, .signalingNaN, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        1e300, -1e300, 0x1p63, -0x1p63, 0x1p63.nextDown, 9.3e9, -9.3e9, .leastNonzeroMagnitude,
        -.leastNonzeroMagnitude, .leastNormalMagnitude, -0.0, 0,
    ]

    @Test("every conversion takes every awkward double without trapping and stays in its range")
    func totalOnAwkwardDoubles() {
        for value in Self.awkward {
            let clamped = OutsideValue.clampedDuration(seconds: value)
            #expect(clamped >= .zero && clamped <= OutsideValue.longestDuration, "\(value)")
            if let duration = OutsideValue.duration(seconds: value) {
                #expect(duration >= .zero && duration <= OutsideValue.longestDuration, "\(value)")
            }
            let seconds = OutsideValue.clampedSeconds(value)
            #expect(seconds >= 0 && seconds <= OutsideValue.longestSeconds, "\(value)")
            _ = OutsideValue.clampedNanoseconds(seconds: value)
            _ = OutsideValue.nanoseconds(seconds: value)
            _ = OutsideValue.clampedInt(value)
            _ = OutsideValue.int(value)
            _ = OutsideValue.date(secondsSince1970: value)
            let later = OutsideValue.date(Date(timeIntervalSince1970: 1_700_000_000), advancedBy: value)
            #expect(later.timeIntervalSince1970 >= 1_700_000_000, "\(value)")
            #expect(OutsideValue.date(secondsSince1970: later.timeIntervalSince1970) != nil, "\(value)")
        }
    }

    @Test("a lifetime refuses NaN, infinities and negative values, and clamps huge ones to about 146 years")
    func lifetimes() {
        for refused in [Double.nan, .infinity, -.infinity, -1, -1e300, -.leastNonzeroMagnitude] {
            #expect(OutsideValue.seconds(refused) == nil, "\(refused)")
            #expect(OutsideValue.duration(seconds: refused) == nil, "\(refused)")
        }
        #expect(OutsideValue.duration(seconds: 1e300) == OutsideValue.longestDuration)
        #expect(OutsideValue.duration(seconds: .greatestFiniteMagnitude) == OutsideValue.longestDuration)
        #expect(OutsideValue.duration(seconds: 1.5) == .milliseconds(1_500))
        #expect(OutsideValue.duration(seconds: -0.0) == .zero)
        #expect(OutsideValue.seconds(-0.0)?.sign == .plus)
        #expect(OutsideValue.duration(seconds: .leastNonzeroMagnitude) == .zero)
        #expect(OutsideValue.clampedDuration(seconds: -1e300) == .zero)
        #expect(OutsideValue.clampedDuration(seconds: .nan) == .zero)
        #expect(OutsideValue.clampedDuration(seconds: .infinity) == OutsideValue.longestDuration)
        #expect(OutsideValue.clampedDuration(seconds: 40) == .seconds(40))
    }

    @Test("nanoseconds refuse what does not fit in Int64 and saturate when clamped; negatives are kept")
    func nanoseconds() {
        #expect(OutsideValue.nanoseconds(seconds: 1.25) == 1_250_000_000)
        #expect(OutsideValue.nanoseconds(seconds: -2) == -2_000_000_000)
        #expect(OutsideValue.nanoseconds(seconds: 9.3e9) == nil)
        #expect(OutsideValue.nanoseconds(seconds: .nan) == nil)
        #expect(OutsideValue.nanoseconds(seconds: -.infinity) == nil)
        #expect(OutsideValue.clampedNanoseconds(seconds: 1e300) == .max)
        #expect(OutsideValue.clampedNanoseconds(seconds: -1e300) == .min)
        #expect(OutsideValue.clampedNanoseconds(seconds: .nan) == 0)
        #expect(OutsideValue.nanoseconds(of: .seconds(Int64.max)) == .max)
        #expect(OutsideValue.nanoseconds(of: .seconds(Int64.min)) == .min)
        #expect(OutsideValue.nanoseconds(of: .milliseconds(3)) == 3_000_000)
    }

    @Test("a double becomes an Int rounded toward zero, refused or saturated at Int64's edges")
    func integers() {
        #expect(OutsideValue.int(2.9) == 2)
        #expect(OutsideValue.int(-2.9) == -2)
        #expect(OutsideValue.int(-0.0) == 0)
        #expect(OutsideValue.int(0x1p63) == nil)
        #expect(OutsideValue.int(0x1p63.nextDown) == Int(0x1p63.nextDown))
        #expect(OutsideValue.int(-0x1p63) == .min)
        #expect(OutsideValue.int(.nan) == nil)
        #expect(OutsideValue.clampedInt(1e300) == .max)
        #expect(OutsideValue.clampedInt(-.infinity) == .min)
        #expect(OutsideValue.clampedInt(.nan) == 0)
    }

    @Test("a count is refused when negative or above its limit, whatever its integer type")
    func counts() {
        #expect(OutsideValue.count(UInt32.max, atMost: 1_000) == nil)
        #expect(OutsideValue.count(UInt32(1_000), atMost: 1_000) == 1_000)
        #expect(OutsideValue.count(Int64(-1), atMost: 1_000) == nil)
        #expect(OutsideValue.count(Int64.max, atMost: .max) == .max)
        #expect(OutsideValue.count(UInt64.max, atMost: .max) == nil)
        #expect(OutsideValue.count(Int64.min, atMost: .max) == nil)
    }

    @Test("a wall-clock reading is a date only between year 1 and year 9999")
    func wallClockReadings() {
        #expect(OutsideValue.date(secondsSince1970: 1_700_000_000) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(OutsideValue.date(secondsSince1970: -1e300) == nil)
        #expect(OutsideValue.date(secondsSince1970: 1e300) == nil)
        #expect(OutsideValue.date(secondsSince1970: .nan) == nil)
        #expect(OutsideValue.date(secondsSince1970: -.infinity) == nil)
        #expect(OutsideValue.date(secondsSince1970: OutsideValue.latestSecondsSince1970) == nil)
        #expect(OutsideValue.date(secondsSince1970: OutsideValue.latestSecondsSince1970 - 1) != nil)
        #expect(OutsideValue.date(secondsSince1970: OutsideValue.earliestSecondsSince1970) != nil)
        #expect(OutsideValue.date(secondsSince1970: OutsideValue.earliestSecondsSince1970 - 1) == nil)
        #expect(OutsideValue.date(secondsSince1970: -0.0) == Date(timeIntervalSince1970: 0))
    }

    @Test("another replica's reading is believed up to an hour ahead and a year behind, not beyond")
    func plausibleReadings() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(OutsideValue.isPlausible(now, near: now))
        #expect(OutsideValue.isPlausible(now.addingTimeInterval(OutsideValue.wallClockLead), near: now))
        #expect(!OutsideValue.isPlausible(now.addingTimeInterval(OutsideValue.wallClockLead + 1), near: now))
        #expect(OutsideValue.isPlausible(now.addingTimeInterval(-OutsideValue.wallClockLag), near: now))
        #expect(!OutsideValue.isPlausible(now.addingTimeInterval(-OutsideValue.wallClockLag - 1), near: now))
        #expect(!OutsideValue.isPlausible(Date(timeIntervalSince1970: -1e300), near: now))
        #expect(!OutsideValue.isPlausible(Date(timeIntervalSince1970: .nan), near: now))
        #expect(OutsideValue.clampedSeconds(from: now, to: now.addingTimeInterval(-5)) == 0)
        #expect(OutsideValue.clampedSeconds(from: now, to: now.addingTimeInterval(5)) == 5)
        #expect(OutsideValue.clampedSeconds(from: now, to: Date.distantFuture) <= OutsideValue.longestSeconds)
    }

    @Test("instant arithmetic saturates at the ends of the time line instead of wrapping round")
    func instantsSaturate() {
        let late = CacheInstant(nanoseconds: .max - 5)
        let early = CacheInstant(nanoseconds: .min + 5)
        #expect(late.advanced(by: .seconds(1)) == CacheInstant(nanoseconds: .max))
        #expect(early.advanced(by: .seconds(-1)) == CacheInstant(nanoseconds: .min))
        #expect(late.advanced(by: .seconds(Int64.max)) == CacheInstant(nanoseconds: .max))
        #expect(late.advanced(by: .nanoseconds(-5)) == CacheInstant(nanoseconds: .max - 10))
        #expect(late.duration(since: early) == .nanoseconds(Int64.max))
        #expect(early.duration(since: late) == .nanoseconds(Int64.min))
        #expect(late.seconds(since: early) > 9e9)
        #expect(early.seconds(since: late) < -9e9)
        #expect(late.duration(since: CacheInstant(nanoseconds: .max - 7)) == .nanoseconds(2))
    }
}
