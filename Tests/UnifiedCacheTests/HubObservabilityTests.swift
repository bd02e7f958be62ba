import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("Statistics, metrics and exports never mix sessions or reveal values unasked")
struct HubObservabilityTests {
    @Test("session statistics are the session's own; hub metrics carry no session id")
    func statisticsAndMetrics() async throws {
        let harness = try await FacadeHarness("observability")
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        let request = CachedGET(path: "/api/accounts", key: "accountSummary.list")
        _ = try await alice.rest.perform(with: request).get()
        _ = try await alice.rest.perform(with: request).get()
        _ = try await bob.rest.perform(with: request).get()
        #expect(alice.cacheManager.getCacheStatistics().rest.hits == 1)
        #expect(bob.cacheManager.getCacheStatistics().rest.hits == 0)

        let profile = UntypedGraphQLOperation(
            document: "query UserProfile { profile { id displayName } }", operationName: "UserProfile")
        _ = try await alice.graphQL.fetch(operation: profile).get()
        let hubStatistics = harness.hub.statistics()
        #expect(hubStatistics.graphQLRecords > 0)
        #expect(hubStatistics.queryTimestamps == 1)
        #expect(hubStatistics.rest.hits == 1)

        let metrics = harness.hub.metricsText()
        #expect(metrics.contains("ucache_hits_total"))
        #expect(!metrics.contains("session-alice"))
        #expect(!metrics.contains("session-bob"))
    }

    @Test("an export shows keys and sizes but redacts values and identifiers unless asked")
    func exportRedacts() async throws {
        let harness = try await FacadeHarness("export")
        let alice = harness.session(.alice)
        struct Profile: Decodable, Sendable { var email: String }
        struct ProfileRequest: RequestType {
            typealias Response = Profile
            var path: String { "/api/profile" }
            var cache: RequestCache? = RequestCache(key: "userProfile.me", accountIds: ["101"])
        }
        _ = try await alice.rest.perform(with: ProfileRequest()).get()
        let redacted = alice.cacheManager.exportCacheContents(redaction: ExportRedaction())
        #expect(redacted.contains("userProfile.me"))
        #expect(!redacted.contains("alice@example.com"))
        #expect(!redacted.contains("session-alice"))
        #expect(!redacted.contains("\"101\""))
        let revealed = alice.cacheManager.exportCacheContents(redaction: .revealingEverything)
        #expect(revealed.contains("alice@example.com"))
        let bobExport = harness.session(.bob).cacheManager.exportCacheContents(redaction: .revealingEverything)
        #expect(!bobExport.contains("alice@example.com"))
    }

    @Test("identifiers inside REST keys are redacted like those of GraphQL records, unless asked for")
    func exportRedactsIdentifiersInKeys() async throws {
        let harness = try await FacadeHarness("exportkeys")
        let alice = harness.session(.alice)
        let secrets = ["1017", "alice@example.com", "tok_9f8e7d6c5b4a"]
        for key in ["balances.1017", "userProfile.alice@example.com", "statements.tok_9f8e7d6c5b4a"] {
            _ = try await alice.rest.perform(with: CachedGET(path: "/api/profile", key: key)).get()
        }
        let account = UntypedGraphQLOperation(
            document: "query Balance { account(id: \"101\") { id balance } }", operationName: "Balance")
        _ = try await alice.graphQL.fetch(operation: account).get()

        let redacted = alice.cacheManager.exportCacheContents(redaction: .redacted)
        let valuesOnly = alice.cacheManager.exportCacheContents(redaction: ExportRedaction(includesValues: true))
        for secret in secrets {
            #expect(!redacted.contains(secret), "\(secret)")
        }
        #expect(!redacted.contains("Account:101"))
        #expect(redacted.contains("balances.#" + ExportRedaction.fingerprint(of: "1017")))
        #expect(redacted.contains("userProfile.#"))
        #expect(redacted.contains("statements.#"))
        #expect(!valuesOnly.contains("balances.1017"))
        #expect(!valuesOnly.contains("tok_9f8e7d6c5b4a"))

        let revealed = alice.cacheManager.exportCacheContents(redaction: .revealingEverything)
        for key in ["balances.1017", "userProfile.alice@example.com", "statements.tok_9f8e7d6c5b4a", "Account:101"] {
            #expect(revealed.contains(key), "\(key)")
        }
    }
}
