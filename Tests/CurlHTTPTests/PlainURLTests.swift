import FixtureSupport
import Testing

@testable import CurlHTTP

/// The fast path of URL validation may only skip libcurl's parser for URLs that parser accepts.
@Suite("Plain URLs skip the URL parse, and only URLs libcurl accepts are plain")
struct PlainURLTests {
    private static func libcurlAccepts(_ url: String) -> Bool {
        (try? RequestValidation.validateWithLibcurl(url)) != nil
    }

    @Test(
        "the URLs upstream calls carry are plain",
        arguments: [
            "http://127.0.0.1:8080/api/accounts/101/summary", "https://api.example.com/v1/graphql",
            "HTTPS://API.example.com", "http://localhost:1/", "http://a/b?c=d&e=f%20g#h",
            "https://svc-1.internal:65535/x/y;z?q=[1]&r=(2)*3+4,5!$'~_@:",
        ])
    func commonURLsArePlain(url: String) {
        #expect(PlainURL.isPlain(url))
        #expect(Self.libcurlAccepts(url))
    }

    @Test(
        "anything unusual is left to libcurl's parser",
        arguments: [
            "", "http://", "http:///path", "http://-host/", "http://host-/", "http://user:pw@host/", "http://[::1]:80/",
            "http://host:65536/", "http://host:/", "http://host:123456/", "http://exa mple.com/", "http://host/a b",
            "http://host/\u{e9}", "http://h\u{e9}llo/", "ftp://host/", "file:///etc/passwd", "httpx://host/",
            "http:/host/", "http://host\\evil/", "http://host/\"q\"", "http://host/<script>", "http://host/a\tb",
            "http://ho%41st/", "javascript:alert(1)",
        ])
    func unusualURLsAreNotPlain(url: String) {
        #expect(!PlainURL.isPlain(url))
    }

    @Test("every plain URL among thousands generated near the edges is one libcurl accepts")
    func plainImpliesLibcurlAccepts() {
        let pieces = [
            "http", "https", "HTTP", "://", ":", "/", "//", "?", "#", "@", "[", "]", "%", "%2", "%zz", "..", ".", "-",
            "a", "Z9", "host", "0", "65535", "65536", "99999", "~", "_", "!", "$", "&", "'", "(", ")", "*", "+", ",",
            ";", "=", "x.y", "-a", "a-",
        ]
        var generator = SeededGenerator(seed: 0x5EED)
        var plainCount = 0
        for _ in 0..<20_000 {
            var url = generator.next() % 2 == 0 ? "http://" : "https://"
            for _ in 0..<(1 + Int(generator.next() % 8)) {
                url += pieces[Int(generator.next() % UInt64(pieces.count))]
            }
            guard PlainURL.isPlain(url) else { continue }
            plainCount += 1
            #expect(Self.libcurlAccepts(url), "plain but refused by libcurl: \(url)")
        }
        #expect(plainCount > 1_000)
    }
}
