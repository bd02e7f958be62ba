import FixtureSupport
import Testing

@testable import CurlHTTP

/// A response's headers are read from the received block without parsing it first; every operation must answer as the
/// same fields given one by one would.
@Suite("Received headers answer as the same fields given one by one")
struct ReceivedHeadersTests {
    private static func received(_ lines: [String]) -> CurlHTTPClient.Headers {
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        return CurlHTTPClient.Headers(received: ReceivedHeaderBlock(copying: bytes))
    }

    private static let nginxLines = [
        "Server: nginx/1.22.1", "Date: Mon, 23 Nov 2026 17:39:49 GMT", "Content-Type: application/json",
        "Content-Length: 301", "Set-Cookie: a=1", "ETag: \"6b047a65-12d\"", "set-cookie: b=2", "Accept-Ranges: bytes",
    ]

    @Test("lookups by name ignore case, keep repeats in order, and find nothing absent")
    func lookups() {
        let headers = Self.received(Self.nginxLines)
        #expect(headers["content-type"] == "application/json")
        #expect(headers["ETAG"] == "\"6b047a65-12d\"")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(headers.contains("accept-ranges"))
        #expect(!headers.contains("Accept"))
        #expect(headers["Content"] == nil)
        #expect(headers["Content-Length-"] == nil)
        #expect(headers.values(for: "vary").isEmpty)
        #expect(headers.count == 8)
        #expect(headers.fields.map(\.name) == Self.nginxLines.map { String($0.prefix { $0 != ":" }) })
    }

    @Test("a line without a colon is not a field, and a value starts after the colon's spaces and tabs")
    func lineShapes() {
        let headers = Self.received(["no colon here", "X-A:  \t spaced", "X-B:", "X-C:no-space", ":empty-name"])
        #expect(headers.count == 4)
        #expect(headers["x-a"] == "spaced")
        #expect(headers["x-b"] == "")
        #expect(headers["x-c"] == "no-space")
        #expect(headers[""] == "empty-name")
        #expect(!headers.contains("no colon here"))
        #expect(Self.received([]).count == 0)
        #expect(Self.received([])["x"] == nil)
    }

    @Test("changing received headers keeps the other fields and their order")
    func mutations() {
        var headers = Self.received(Self.nginxLines)
        headers.replaceOrAdd(name: "set-cookie", value: "c=3")
        headers.add(name: "Vary", value: "Accept")
        headers.remove(name: "server")
        #expect(headers.values(for: "Set-Cookie") == ["c=3"])
        #expect(headers["vary"] == "Accept")
        #expect(headers["Server"] == nil)
        #expect(headers.count == 7)
        #expect(headers.fields.first?.name == "Date")
    }

    @Test("received headers equal the same fields given, and print names only")
    func equalityAndDescription() {
        let received = Self.received(["Authorization: Bearer secret-token", "X-A: 1"])
        let given = CurlHTTPClient.Headers([("Authorization", "Bearer secret-token"), ("X-A", "1")])
        #expect(received == given)
        #expect(received == Self.received(["Authorization: Bearer secret-token", "X-A: 1"]))
        #expect(received != Self.received(["Authorization: Bearer other", "X-A: 1"]))
        #expect(received != CurlHTTPClient.Headers([("X-A", "1")]))
        #expect(received.description == "Headers(Authorization, X-A)")
        #expect(Array(received.map(\.value)) == ["Bearer secret-token", "1"])
    }

    @Test("on generated header blocks, every lookup answers as the parsed fields do")
    func generatedBlocks() {
        var generator = SeededGenerator(seed: 16)
        let names = ["A", "a", "Cache-Control", "cache-control", "X", "x-y", "ETag", "Etag", "Vary", ""]
        let values = ["", " ", "1", "max-age=5", "\t tabbed", "a:b", "é", "W/\"x\""]
        for _ in 0..<2_000 {
            var lines: [String] = []
            var expected: [(name: String, value: String)] = []
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                let name = names.randomElement(using: &generator)!
                let value = values.randomElement(using: &generator)!
                lines.append(Bool.random(using: &generator) ? "\(name):\(value)" : "\(name): \(value)")
                expected.append((name, String(value.drop { $0 == " " || $0 == "\t" })))
                if Int.random(in: 0..<10, using: &generator) == 0 { lines.append("garbage without colon") }
            }
            let headers = Self.received(lines)
            let reference = CurlHTTPClient.Headers(expected)
            #expect(headers == reference)
            #expect(headers.count == reference.count)
            for name in names + ["missing", "CACHE-CONTROL"] {
                #expect(headers[name] == reference[name])
                #expect(headers.values(for: name) == reference.values(for: name))
                #expect(headers.contains(name) == reference.contains(name))
            }
        }
    }

    @Test("a response's headers stay its own after its pooled handle serves the next requests")
    func headersOutliveTheHandle() async throws {
        let tenant = try await FixtureServer.tenant("receivedheaders")
        let client = try CurlHTTPClient()
        let first = try await client.execute(.init(url: tenant.url("/api/echo?set_header=X-Which:first")))
        for index in 0..<5 {
            let later = try await client.execute(.init(url: tenant.url("/api/echo?set_header=X-Which:later-\(index)")))
            #expect(later.headers["x-which"] == "later-\(index)")
        }
        await client.shutdown()
        #expect(first.headers.values(for: "X-Which") == ["first"])
    }
}
