import CurlHTTP
import Testing

@testable import RESTCache

@Suite("Cache-Control from an upstream: odd directives are skipped, never a trap")
struct CacheControlParsingTests {
    @Test("a directive of '=' alone, or empty ones, are skipped and the real directives still apply")
    func bareEqualsIsSkipped() {
        let semantics = HTTPCachingSemantics(headers: ["Cache-Control": "=, , private,=,max-age=30, =\"@19\""])
        #expect(semantics.isPrivate)
        #expect(semantics.maxAge == 30)
        #expect(!semantics.noStore)
    }

    @Test("the fuzzer's input (a bare '=' among mangled directives) reads as no directive at all")
    func fuzzerInput() {
        let value = "\u{B2}ub, l: vub, lic, p\u{A4}\u{A4}ub,c, chl,c,ic, , lic, chlic,=, lic,ic, =\"@19\""
        let semantics = HTTPCachingSemantics(headers: ["Cache-Control": value])
        #expect(!semantics.isPrivate && !semantics.noStore && !semantics.noCache)
        #expect(semantics.maxAge == nil)
    }
}
