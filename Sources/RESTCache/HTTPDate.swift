/// HTTP-date parsing (RFC 9110 §5.6.7) for `Expires` and `Date`: the preferred IMF-fixdate and the two obsolete
/// forms every recipient must accept. Hand-written so that it needs no locale-dependent formatter.
enum HTTPDate {
    /// Seconds since 1970-01-01T00:00:00Z, or nil when `text` is none of the three forms (years have four digits, as
    /// the grammar says: a longer one would overflow the day count).
    static func secondsSince1970(_ text: String) -> Int? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch words.count {
        case 6 where words[0].hasSuffix(",") && words[5] == "GMT":
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            return seconds(day: words[1], month: words[2], year: words[3], time: words[4], twoDigitYear: false)
        case 4 where words[0].hasSuffix(",") && words[3] == "GMT":
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3 else { return nil }
            return seconds(day: parts[0], month: parts[1], year: parts[2], time: words[2], twoDigitYear: true)
        case 5:
            // asctime: Sun Nov  6 08:49:37 1994
            return seconds(day: words[2], month: words[1], year: words[4], time: words[3], twoDigitYear: false)
        default:
            return nil
        }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func seconds(day: String, month: String, year: String, time: String, twoDigitYear: Bool) -> Int? {
        guard let monthIndex = months.firstIndex(of: month), let day = Int(day), (1...31).contains(day),
            var year = Int(year), (0...9999).contains(year)
        else { return nil }
        if twoDigitYear {
            guard year < 100 else { return nil }
            year += year < 70 ? 2000 : 1900
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = daysSince1970(year: year, month: monthIndex + 1, day: day)
        return days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (the civil-from-days inverse).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
