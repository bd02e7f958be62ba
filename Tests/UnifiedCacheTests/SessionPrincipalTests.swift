import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("A session is bound to the principal the BFF verified")
struct SessionPrincipalTests {
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")

    @Test(
        "the same session id presented with another principal never gets the first principal's REST, GraphQL or cookies"
    )
    func anotherPrincipalOnTheSameIDStartsAFreshSession() async throws {
        let harness = try await FacadeHarness("principalswap")
        let hub = harness.hub
        let alice = hub.session(
            id: "cookie-1", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await alice.rest.perform(with: accounts).get()
        #expect(await alice.graphQL.fetch(operation: summary).isSuccess)
        _ = try await hub.client.execute(
            .init(url: harness.tenant.url("/api/cookies/set?name=sid&value=alice"), cookieJar: alice.cookieJar))

        let bob = hub.session(id: "cookie-1", principal: VerifiedPrincipal("bob"), credentials: .bearer("token-bob"))

        #expect(bob !== alice)
        #expect(bob.scope != alice.scope)
        #expect(bob.cookieJar.cookies().isEmpty)
        #expect(alice.cookieJar.cookies().isEmpty)
        #expect(hub.restStore.entryCount(in: alice.scope) == 0)
        #expect(hub.graphQLStore.recordCount(in: alice.scope) == 0)
        #expect(try await bob.rest.performWithSource(with: accounts).get().source == .network)
        let bobSummary = try await bob.graphQL.fetch(operation: summary).get()
        #expect(bobSummary.source == .network)
        let counters = try await harness.counters()
        #expect(counters.tokens("GET /api/accounts") == ["token-alice": 1, "token-bob": 1])
        #expect(counters.tokens("op:AccountSummary") == ["token-alice": 1, "token-bob": 1])
        #expect(hub.sessionCount == 1)
        #expect(hub.sessionStatistics().ended(.principalChanged) == 1)
        #expect(harness.events.sessionEndings == [.principalChanged])
    }

    @Test("a principal-only session is the user's one session, apart from id-based sessions and other users")
    func principalOnlySessions() async throws {
        let harness = try await FacadeHarness("principalonly")
        let hub = harness.hub
        let alice = hub.session(principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        #expect(hub.session(principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice")) === alice)
        let bob = hub.session(principal: VerifiedPrincipal("bob"), credentials: .bearer("token-bob"))
        let aliceByID = hub.session(
            id: "alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        #expect(Set([alice.scope, bob.scope, aliceByID.scope]).count == 3)
        #expect(hub.existingSession(principal: VerifiedPrincipal("alice")) === alice)

        _ = try await alice.rest.perform(with: accounts).get()
        #expect(try await bob.rest.performWithSource(with: accounts).get().source == .network)
        #expect(try await aliceByID.rest.performWithSource(with: accounts).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: accounts).get().source == .cache)

        let report = try #require(await hub.endSession(principal: VerifiedPrincipal("alice")))
        #expect(report.entries == 1)
        #expect(hub.existingSession(principal: VerifiedPrincipal("alice")) == nil)
        #expect(hub.existingSession(id: "alice") === aliceByID)
    }

    @Test("no choice of session id reaches the scope of another id and principal")
    func scopesCannotBeForged() async throws {
        let harness = try await FacadeHarness("principalforge")
        let hub = harness.hub
        let victim = hub.session(id: "x", principal: VerifiedPrincipal("alice"), credentials: .none)
        let forgedIDs = ["x|alice", "1:x|alice", "x|", "p|alice", "p", "x\u{1F}alice"]
        for id in forgedIDs {
            for subject in ["alice", "", "|alice", "x|alice"] where !(id == "x" && subject == "alice") {
                let attacker = hub.session(id: id, principal: VerifiedPrincipal(subject), credentials: .none)
                #expect(attacker.scope != victim.scope, "id \(id) with subject \(subject)")
            }
        }
        let principalOnly = hub.session(principal: VerifiedPrincipal("1:x|alice"), credentials: .none)
        #expect(principalOnly.scope != victim.scope)
    }

    @Test("descriptions show fingerprints, never the session id or the principal")
    func descriptionsHideIdentities() async throws {
        let harness = try await FacadeHarness("principaldescription")
        let session = harness.hub.session(
            id: "secret-cookie-value", principal: VerifiedPrincipal("alice@example.com"), credentials: .none)
        let text = "\(session) \(session.principal) \(session.scope)"
        #expect(!text.contains("secret-cookie-value"))
        #expect(!text.contains("alice@example.com"))
    }
}
