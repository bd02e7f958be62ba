import Testing

@testable import RESTCache

@Suite("HTTP-date parsing")
struct HTTPDateTests {
    @Test("the three forms of RFC 9110 give the same instant")
    func threeForms() {
        let expected = 784_111_777  // 1994-11-06T08:49:37Z
        #expect(HTTPDate.secondsSince1970("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.secondsSince1970("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.secondsSince1970("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.secondsSince1970("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.secondsSince1970("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
        #expect(HTTPDate.secondsSince1970("Fri, 31 Dec 9999 23:59:59 GMT") == 253_402_300_799)
        #expect(HTTPDate.secondsSince1970("Mon, 01 Jan 0001 00:00:00 GMT") == -62_135_596_800)
    }

    @Test("anything else is refused")
    func invalid() {
        for text in [
            "0", "", "-1", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
            "Sun, 06 Nov 10000 08:49:37 GMT", "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
            "Sun Nov  6 08:49:37 9223372036854775807", "Sun, 06 Nov 99999999999999999999 08:49:37 GMT",
        ] {
            #expect(HTTPDate.secondsSince1970(text) == nil, "\(text)")
        }
    }
}
