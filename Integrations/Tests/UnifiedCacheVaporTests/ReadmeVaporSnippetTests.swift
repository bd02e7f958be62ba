import Foundation
import IntegrationFixtures
import Testing
import UnifiedCache
import UnifiedCacheVapor
import Vapor
import VaporTesting

@Suite("README.md's Vapor snippet compiles, matches this package's copy and serves a cached route")
struct ReadmeVaporSnippetTests {
    static let heading = "## In a Vapor route"

    private static let readmeURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    private static let copyURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("ReadmeVaporSnippet.swift")

    /// The ```swift blocks of `markdown` between `heading` and the next `## ` heading.
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

    @Test("every swift block of the README's Vapor section appears verbatim in the compiled copy")
    func snippetIsCompiledVerbatim() throws {
        let readme = try String(contentsOf: Self.readmeURL, encoding: .utf8)
        let copy = try String(contentsOf: Self.copyURL, encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme, under: Self.heading)
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(copy.contains(block), "README block not in ReadmeVaporSnippet.swift:\n\(block)")
        }
    }

    @Test("a block that differs from the compiled copy is found")
    func driftIsFound() throws {
        let markdown = "# App\n\n\(Self.heading)\n\n```swift\nlet drifted = 1\n```\n\n## Next\n"
        let copy = try String(contentsOf: Self.copyURL, encoding: .utf8)
        let blocks = Self.swiftBlocks(of: markdown, under: Self.heading)
        #expect(blocks == ["let drifted = 1\n"])
        #expect(!copy.contains(try #require(blocks.first)))
    }

    @Test("the README's configure serves a user's accounts, fetched then a hit, and logs out over real HTTP")
    func snippetServesAccounts() async throws {
        let tenant = try await FixtureServer.tenant("vapor-readme")
        let app = try await Application.make(.testing)
        do {
            try configure(app, upstream: tenant.baseURL)
            let client = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            let first = try await client.get("/me/accounts", as: .alice)
            #expect(first.status == .ok)
            #expect(first.cacheStatus == "ucache-l1; fwd=uri-miss")
            #expect(try first.accounts().map(\.id).contains("101"))
            let second = try await client.get("/me/accounts", as: .alice)
            #expect(second.cacheStatus == "ucache-l1; hit")
            #expect(try await client.post("/logout", as: .alice).status == .noContent)
            let afterLogout = try await client.get("/me/accounts", as: .alice)
            #expect(afterLogout.cacheStatus == "ucache-l1; fwd=uri-miss")
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
        #expect(try await tenant.counters().route("GET /api/accounts") == 2)
    }
}
