import Foundation
import HummingbirdTesting
import IntegrationFixtures
import Testing
import UnifiedCache

@Suite("README.md's Hummingbird snippet compiles, matches this package's copy and serves a cached route")
struct ReadmeSnippetTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The ```swift blocks of `README.md` between `heading` and the next `## ` heading.
    static func swiftBlocks(of markdown: String, under heading: String) -> [String] {
        guard let start = markdown.range(of: "\n" + heading + "\n") else { return [] }
        let rest = markdown[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var blocks: [String] = []
        var current: [Substring]?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test("every swift block of the README's Hummingbird section appears verbatim in the compiled copy")
    func snippetIsCompiledVerbatim() throws {
        let readme = try String(
            contentsOf: Self.packageRoot.deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8)
        let copy = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("ReadmeHummingbirdSnippet.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme, under: "## In a Hummingbird route")
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(copy.contains(block), "README block not in ReadmeHummingbirdSnippet.swift:\n\(block)")
        }
    }

    @Test("a block that differs from the compiled copy is found")
    func driftIsFound() throws {
        let markdown = "# App\n\n## In a Hummingbird route\n\n```swift\nlet drifted = 1\n```\n\n## Next\n"
        let copy = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("ReadmeHummingbirdSnippet.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: markdown, under: "## In a Hummingbird route")
        #expect(blocks == ["let drifted = 1\n"])
        #expect(!copy.contains(try #require(blocks.first)))
    }

    @Test("the README's router serves a user's accounts, cached, over real HTTP")
    func snippetServesAccounts() async throws {
        let harness = try await HummingbirdHarness("readme")
        let app = harness.application(buildRouter(hub: harness.hub, upstream: harness.tenant.baseURL))
        try await app.test(.live) { client in
            let first = try await client.get("/me/accounts", as: .alice)
            #expect(first.status == .ok)
            #expect(first.cacheStatus == "ucache-l1; fwd=uri-miss")
            #expect(try first.accounts().map(\.id).contains("101"))
            let second = try await client.get("/me/accounts", as: .alice)
            #expect(second.cacheStatus == "ucache-l1; hit")
        }
        #expect(try await harness.tenant.counters().route("GET /api/accounts") == 1)
        await harness.hub.shutdown()
    }
}
