import CurlHTTP
import FixtureSupport
import Foundation
import GraphQLCache
import Testing

/// What the fixture's APQ control route reports: the mode, the hashes it knows, what each kind of request did.
private struct PersistedQueryReport: Decodable {
    var mode: String
    var hashes: Int
    var counts: [String: Int]

    func count(_ kind: String) -> Int { counts[kind] ?? 0 }
}

extension ClientHarness {
    fileprivate func persistedQueries() async throws -> PersistedQueryReport {
        let response = try await tenant.server.controlClient.execute(
            CurlHTTPClient.Request(url: tenant.url("/__control/apq")))
        return try JSONDecoder().decode(PersistedQueryReport.self, from: response.body)
    }

    /// Switches the upstream's APQ support (`on` / `unsupported`), or makes it forget the hashes it learnt.
    fileprivate func configurePersistedQueries(_ json: String) async throws {
        let response = try await tenant.server.controlClient.execute(
            CurlHTTPClient.Request(
                method: .post, url: tenant.url("/__control/apq"), headers: ["Content-Type": "application/json"],
                body: Data(json.utf8)))
        guard response.isSuccess else {
            throw StoreTestFailure("the APQ settings were refused with \(response.status)")
        }
    }
}

@Suite("Client: automatic persisted queries to the upstream")
struct ClientPersistedQueryTests {
    private let apq = GraphQLClient.Configuration(usesAutomaticPersistedQueries: true)

    @Test("a query goes by hash: the document once after PersistedQueryNotFound, then the hash alone")
    func hashFirstThenDocumentOnce() async throws {
        let harness = try await ClientHarness("apq-hash")
        let client = try harness.client(configuration: apq)
        for _ in 0..<3 {
            let answer = try await client.fetch(
                query: AccountBalanceQuery(id: "101"), cachePolicy: .fetchIgnoringCacheData
            ).value()
            #expect(answer.data.account?.id == "101")
        }
        let report = try await harness.persistedQueries()
        #expect(report.count("notFound") == 1)
        #expect(report.count("registered") == 1)
        #expect(report.count("hashOnly") == 2)
        #expect(report.count("plain") == 0)
        #expect(report.count("mismatch") == 0)  // the hash is the SHA-256 of exactly the text sent
        #expect(try await harness.tenant.counters().route("POST /graphql") == 4)
    }

    @Test("hash-only queries go by GET when configured; a mutation never does")
    func getForHashedQueriesNeverForMutations() async throws {
        let harness = try await ClientHarness("apq-get")
        var configuration = apq
        configuration.usesGETForHashedQueries = true
        let client = try harness.client(configuration: configuration)
        for _ in 0..<2 {
            _ = try await client.fetch(
                query: AccountBalanceQuery(id: "101"), cachePolicy: .fetchIgnoringCacheData
            ).value()
        }
        var counters = try await harness.tenant.counters()
        #expect(counters.route("GET /graphql") == 2)  // the first hash, then the hash the upstream knows
        #expect(counters.route("POST /graphql") == 1)  // the document, once
        for _ in 0..<2 {
            _ = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 1)).value()
        }
        counters = try await harness.tenant.counters()
        #expect(counters.route("GET /graphql") == 2)
        #expect(counters.route("POST /graphql") == 4)  // the mutation: hash, document, hash — all POSTed
        #expect(counters.statuses["405"] == nil)
        let report = try await harness.persistedQueries()
        #expect(report.count("notFound") == 2)
        #expect(report.count("hashOnly") == 2)
    }

    @Test("an upstream without APQ answers PersistedQueryNotSupported once; whole documents from then on")
    func notSupportedTurnsItOff() async throws {
        let harness = try await ClientHarness("apq-unsupported")
        try await harness.configurePersistedQueries(#"{"mode": "unsupported"}"#)
        let client = try harness.client(configuration: apq)
        for _ in 0..<3 {
            let answer = try await client.fetch(
                query: AccountBalanceQuery(id: "101"), cachePolicy: .fetchIgnoringCacheData
            ).value()
            #expect(answer.data.account?.id == "101")
        }
        let report = try await harness.persistedQueries()
        #expect(report.count("notSupported") == 1)
        #expect(report.count("plain") == 3)
        #expect(try await harness.count("AccountBalance") == 4)
    }

    @Test("PersistedQueryNotSupported turns APQ off for that upstream in every session of the store, until reset")
    func notSupportedIsPerUpstream() async throws {
        let harness = try await ClientHarness("apq-unsupported-upstream")
        try await harness.configurePersistedQueries(#"{"mode": "unsupported"}"#)
        let alice = try harness.client(.alice, configuration: apq)
        let bob = try harness.client(.bob, configuration: apq)
        _ = try await alice.fetch(query: ProfileQuery(), cachePolicy: .fetchIgnoringCacheData).value()
        // Bob's session sends the whole document at once: the upstream said it once, for everybody.
        _ = try await bob.fetch(query: ProfileQuery(), cachePolicy: .fetchIgnoringCacheData).value()
        var report = try await harness.persistedQueries()
        #expect(report.count("notSupported") == 1)
        #expect(report.count("plain") == 2)

        // Another upstream (another URL) of the same store is not concerned: it still gets hashes.
        let other = try await FixtureServer.tenant("apq-unsupported-other")
        let carol = try GraphQLClient(
            url: other.graphqlURL, transport: harness.transport, store: harness.store, scope: .session("carol"),
            credentials: .bearer(FixtureTenant.User.carol.token), configuration: apq)
        _ = try await carol.fetch(query: ProfileQuery(), cachePolicy: .fetchIgnoringCacheData).value()
        #expect(try await other.counters().operation("Profile") == 2)  // hash, PersistedQueryNotFound, document

        // Reset: the upstream enabled APQ since; the next query tries the hash again.
        try await harness.configurePersistedQueries(#"{"mode": "on"}"#)
        #expect(harness.store.resetPersistedQuerySupport() == 1)
        _ = try await bob.fetch(query: ProfileQuery(), cachePolicy: .fetchIgnoringCacheData).value()
        report = try await harness.persistedQueries()
        #expect(report.count("notFound") == 1)
        #expect(report.count("registered") == 1)
    }

    @Test("an upstream that forgot its hashes (a restart) is taught again, and the answer still arrives")
    func forgottenHashesAreResent() async throws {
        let harness = try await ClientHarness("apq-forgotten")
        let client = try harness.client(configuration: apq)
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101"), cachePolicy: .fetchIgnoringCacheData)
            .value()
        try await harness.configurePersistedQueries(#"{"forget": true}"#)
        let answer = try await client.fetch(
            query: AccountBalanceQuery(id: "102"), cachePolicy: .fetchIgnoringCacheData
        ).value()
        #expect(answer.data.account?.id == "102")
        let report = try await harness.persistedQueries()
        #expect(report.count("notFound") == 2)
        #expect(report.count("registered") == 2)
        #expect(report.hashes == 1)
    }

    @Test("without the option a client sends whole documents and no persisted-query extension")
    func offByDefault() async throws {
        let harness = try await ClientHarness("apq-off")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        let report = try await harness.persistedQueries()
        #expect(report.counts == ["plain": 1])
    }
}
