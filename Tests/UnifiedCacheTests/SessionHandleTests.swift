import CurlHTTP
import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("Sessions are light handles over the hub's shared REST and GraphQL cores")
struct SessionHandleTests {
    private let accounts = AccountList()
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")

    @Test("two sessions run on the hub's one REST core and one GraphQL core, yet never read each other's entries")
    func sharedCoresStayIsolated() async throws {
        let harness = try await FacadeHarness("handlesshared")
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        #expect(alice.rest.shared === bob.rest.shared)
        #expect(alice.graphQL.shared === bob.graphQL.shared)

        let aliceAccounts = try await alice.rest.perform(with: accounts).get()
        #expect(try await alice.graphQL.fetch(operation: summary).get().source == .network)
        // Bob's cache-only reads of the same key and query find nothing of Alice's.
        let cacheOnly = AccountList(cachePolicy: .cacheOnly)
        guard case .failure(.cacheMiss) = await bob.rest.perform(with: cacheOnly) else {
            Issue.record("bob read alice's REST entry")
            return
        }
        let bobQuery = await bob.graphQL.fetch(operation: summary, cachePolicy: .returnCacheDataDontFetch)
        #expect(bobQuery.isFailure)
        // Bob's own reads go upstream with his token and get his answer, which Alice never sees.
        let bobAccounts = try await bob.rest.perform(with: accounts).get()
        #expect(bobAccounts != aliceAccounts)
        #expect(try await alice.rest.perform(with: cacheOnly).get() == aliceAccounts)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
        #expect(try await harness.counters().operation("AccountSummary") == 1)
    }

    @Test("a session whose upstreams set no cookie has a jar without a libcurl store; the first cookie makes it")
    func cookieStoreOnFirstCookie() async throws {
        let harness = try await FacadeHarness("handlescookies")
        let budget = harness.hub.budget
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: accounts).get()
        #expect(try await alice.graphQL.fetch(operation: summary).get().source == .network)
        #expect(!alice.cookieJar.holdsStore)
        #expect(alice.cookieJar.cookies().isEmpty)

        let before = budget.usedBytes
        let setCookie = UncachedGET(
            path: "/api/cookies/set", queryItems: [.init("name", "sid"), .init("value", "alice")])
        _ = try await alice.rest.perform(with: setCookie).get()
        #expect(alice.cookieJar.holdsStore)
        #expect(alice.cookieJar.cookies().map(\.name) == ["sid"])
        #expect(budget.usedBytes == before + SessionCharge.measured.cookieStore)
        // The cookie goes back upstream on the session's next request, and only on its own.
        let seen = try await alice.rest.perform(with: UncachedGET(path: "/api/cookies")).get()
        #expect(seen.cookies == ["sid": "alice"])
        let bob = harness.session(.bob)
        #expect(try await bob.rest.perform(with: UncachedGET(path: "/api/cookies")).get().cookies == [:])
        #expect(!bob.cookieJar.holdsStore)

        await harness.hub.endSession(id: "session-alice")
        await harness.hub.endSession(id: "session-bob")
        #expect(budget.usedBytes == 0)
    }

    @Test("a handle taken before the end refuses work after it, and a part first taken after the end is not charged")
    func handlesOfAnEndedSession() async throws {
        let harness = try await FacadeHarness("handlesended")
        let budget = harness.hub.budget
        let alice = harness.session(.alice)
        let rest = alice.rest
        _ = try await rest.perform(with: accounts).get()
        await harness.hub.endSession(id: "session-alice")
        #expect(budget.usedBytes == 0)

        guard case .failure(.invalidRequest(let error)) = await rest.perform(with: accounts) else {
            Issue.record("an ended session's REST handle answered")
            return
        }
        #expect(error.code == .closed)
        let late = await alice.graphQL.fetch(operation: summary)
        #expect((try? late.get()) == nil)
        if case .failure(let error) = late { #expect(error.code == .closed) }
        #expect(budget.usedBytes == 0)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        #expect(try await harness.counters().operation("AccountSummary") == 0)
    }

    @Test("rest and graphQL are views made on each access; one held across a token refresh sends the new token")
    func viewsFollowTheSession() async throws {
        let harness = try await FacadeHarness("handlesviews")
        let alice = harness.session(.alice)
        #expect(alice.rest !== alice.rest)
        #expect(alice.graphQL !== alice.graphQL)
        let held = alice.rest
        let refreshed = harness.hub.session(
            id: "session-alice", principal: VerifiedPrincipal(FixtureTenant.User.alice.rawValue),
            credentials: .bearer("rotated-token"))
        #expect(refreshed === alice)
        #expect(held.credentials.headers["Authorization"] == "Bearer rotated-token")
        #expect(alice.graphQL.credentials.headers["Authorization"] == "Bearer rotated-token")
    }

    @Test("a session that only reads what is cached keeps no GraphQL state; its first stored answer makes it")
    func graphQLStateOnFirstStoredAnswer() async throws {
        let harness = try await FacadeHarness("handlesstate")
        let alice = harness.session(.alice)
        let cached = await alice.graphQL.fetch(operation: summary, cachePolicy: .returnCacheDataDontFetch)
        #expect(cached.isFailure)
        #expect(alice.clientState == nil)
        #expect(alice.graphQL.queryTimestamps.isEmpty)

        #expect(try await alice.graphQL.fetch(operation: summary).get().source == .network)
        #expect(alice.clientState?.queryTimestampCount == 1)
        #expect(alice.graphQL.queryTimestamps.map(\.queryKey.operationName) == ["AccountSummary"])
        #expect(harness.hub.statistics().queryTimestamps == 1)
    }

    @Test("each query timestamp is charged to the budget while kept; clearing them and ending the session release it")
    func timestampsAreCharged() async throws {
        let harness = try await FacadeHarness("handlestimestamps")
        let budget = harness.hub.budget
        let alice = harness.session(.alice)
        #expect(try await alice.graphQL.fetch(operation: summary).get().source == .network)
        let charged = try #require(alice.clientState?.chargedBytes)
        #expect(charged >= 224 + "AccountSummary".utf8.count)
        let before = budget.usedBytes
        #expect(alice.graphQL.clearTimestamps() == 1)
        #expect(budget.usedBytes == before - charged)
        #expect(alice.clientState?.chargedBytes == 0)

        #expect(try await alice.graphQL.fetch(operation: summary).get().source == .network)
        #expect(alice.clientState?.chargedBytes == charged)
        await harness.hub.endSession(id: "session-alice")
        #expect(budget.usedBytes == 0)
    }

    @Test("a jar the session made, replaced by one the credentials bring, is retired and its store released")
    func replacedOwnJar() async throws {
        let harness = try await FacadeHarness("handlesreplacedjar")
        let budget = harness.hub.budget
        let alice = harness.session(.alice)
        let setCookie = UncachedGET(
            path: "/api/cookies/set", queryItems: [.init("name", "sid"), .init("value", "alice")])
        _ = try await alice.rest.perform(with: setCookie).get()
        let own = alice.cookieJar
        #expect(own.holdsStore)
        let before = budget.usedBytes

        let brought = CookieJar()
        alice.updateCredentials(.bearer(FixtureTenant.User.alice.token, cookieJar: brought))
        #expect(alice.cookieJar === brought)
        #expect(budget.usedBytes == before - SessionCharge.measured.cookieStore)
        _ = try await alice.rest.perform(with: setCookie).get()
        #expect(brought.cookies().map(\.name) == ["sid"])
        #expect(own.retire() == false)  // already retired, released once

        await harness.hub.endSession(id: "session-alice")
        #expect(budget.usedBytes == 0)
        // The caller's jar stays the caller's: the end did not retire it (this is its first retire).
        #expect(brought.retire() == true)
    }

    @Test("a cookie that reaches an ended session's jar is dropped: no store is made, and nothing stays charged")
    func lateCookieAfterTheEnd() async throws {
        let harness = try await FacadeHarness("handleslatecookie")
        let budget = harness.hub.budget
        let alice = harness.session(.alice)
        let jar = alice.cookieJar
        await harness.hub.endSession(id: "session-alice")
        #expect(budget.usedBytes == 0)

        // A transfer still carrying the jar (it left before the end) gets its answer afterwards.
        let client = try CurlHTTPClient()
        _ = try await client.execute(
            .init(url: harness.tenant.url("/api/cookies/set?name=sid&value=late"), cookieJar: jar))
        #expect(!jar.holdsStore)
        #expect(jar.cookies().isEmpty)
        #expect(budget.usedBytes == 0)
    }

    @Test("a session charges each part when first used, and its ending releases exactly what it was charged")
    func partsAreChargedWhenMade() async throws {
        let harness = try await FacadeHarness("handlescharge")
        let budget = harness.hub.budget
        let charge = SessionCharge.measured
        let alice = harness.session(.alice)
        #expect(budget.usedBytes == charge.session)
        _ = alice.rest
        _ = alice.rest
        #expect(budget.usedBytes == charge.session + charge.rest)
        _ = alice.graphQL
        #expect(budget.usedBytes == charge.total(rest: true, graphQL: true))
        await harness.hub.endSession(id: "session-alice")
        #expect(budget.usedBytes == 0)
    }
}

/// The user's accounts, cached under one key in each session's scope.
private struct AccountList: RequestType {
    struct Account: Decodable, Sendable, Equatable {
        var id: String
    }
    typealias Response = [Account]
    var cachePolicy: RESTCachePolicy = .cacheFirst
    var path: String { "/api/accounts" }
    var cache: RequestCache? { RequestCache(key: "accountSummary.list", timeout: .seconds(600)) }
}

/// A GET the cache never stores, answered as JSON with an optional `cookies` object (the fixture's cookie routes).
private struct UncachedGET: RequestType {
    struct Response: Decodable, Sendable, Equatable {
        var cookies: [String: String]?
    }
    var path: String
    var queryItems: [QueryItem] = []
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
