import CacheCore
import FixtureSupport
import Foundation
import Synchronization
import Testing
import UnifiedCache

/// A session part that remembers which sessions it was asked to clear, and why.
private final class ClearLog: SessionCachePart {
    let name = "clearLog"
    private let cleared = Mutex<[String]>([])

    var entries: [String] { cleared.withLock { $0 } }

    func clearAll(sessionID: String, reason: ClearReason) async throws {
        cleared.withLock { $0.append("\(sessionID):\(reason)") }
    }
}

@Suite("Your session cache parts go with every session that ends, however it ends")
struct SessionCachePartEndingTests {
    @Test("another principal, idle expiry, the bound and logout each clear the application's parts of that session")
    func partsClearedOnEveryEnding() async throws {
        let tenant = try await FixtureServer.tenant("partendings")
        let log = ClearLog()
        let clock = ManualCacheClock()
        let hub = try CacheHub(
            configuration: .init(
                restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, sessionCacheParts: [log],
                maintenance: .init(interval: nil)),
            settings: try SettingsStore(
                settings: CacheSettings(sessions: .init(idleTimeoutSeconds: 60, maxSessions: 2))),
            clock: clock
        )
        _ = hub.session(id: "a", principal: VerifiedPrincipal("alice"), credentials: .none)
        _ = hub.session(id: "a", principal: VerifiedPrincipal("mallory"), credentials: .none)
        await hub.waitForSessionEndings()
        #expect(log.entries == ["a:principalChanged"])

        _ = hub.session(id: "b", principal: VerifiedPrincipal("bob"), credentials: .none)
        _ = hub.session(id: "c", principal: VerifiedPrincipal("carol"), credentials: .none)
        await hub.waitForSessionEndings()
        #expect(log.entries.last == "a:sessionEvicted")

        clock.advance(seconds: 60)
        #expect(await hub.expireIdleSessions() == 2)
        #expect(Set(log.entries.suffix(2)) == ["b:sessionExpired", "c:sessionExpired"])

        _ = hub.session(id: "d", principal: VerifiedPrincipal("dave"), credentials: .none)
        let report = try #require(await hub.endSession(id: "d"))
        #expect(report.parts.map(\.name).contains("clearLog"))
        #expect(log.entries.last == "d:logout")
        await hub.shutdown()
    }
}
