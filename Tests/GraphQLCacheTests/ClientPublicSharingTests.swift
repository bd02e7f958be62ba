import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("Client: PUBLIC answers shared across sessions only on opt-in; PRIVATE ones never leave their session")
struct ClientPublicSharingTests {
    private let sharing = GraphQLClient.Configuration(sharesPublicResponses: true)

    @Test("without the opt-in every session asks the upstream for a PUBLIC answer itself")
    func publicNotSharedByDefault() async throws {
        let harness = try await ClientHarness("share-off")
        let alice = try harness.client(.alice)
        let bob = try harness.client(.bob)
        _ = try await alice.fetch(query: ExchangeRatesQuery()).value()
        #expect(try await bob.fetch(query: ExchangeRatesQuery()).value().source == .network)
        #expect(try await harness.count("ExchangeRates") == 2)
        #expect(harness.store.sharedPublicResponseCount == 0)
    }

    @Test("with the opt-in a PUBLIC answer of one session answers another's first query, until its maxAge ends")
    func publicSharedWithOptIn() async throws {
        let harness = try await ClientHarness("share-on")
        let alice = try harness.client(.alice, configuration: sharing)
        let bob = try harness.client(.bob, configuration: sharing)
        let carol = try harness.client(.carol, configuration: sharing)
        let fromAlice = try await alice.fetch(query: ExchangeRatesQuery()).value()
        #expect(harness.store.sharedPublicResponseCount == 1)
        harness.clock.advance(seconds: 20)
        let forBob = try await bob.fetch(query: ExchangeRatesQuery()).value()
        #expect(forBob.source == .cache)
        #expect(forBob.data == fromAlice.data)
        #expect(try await harness.count("ExchangeRates") == 1)
        // Merged into bob's own scope with its original write time: its age is honest there.
        #expect(try await bob.fetch(query: ExchangeRatesQuery()).value().age == .seconds(20))
        harness.clock.advance(seconds: 41)  // 61 s after alice's fetch: past the answer's max-age=60
        #expect(try await carol.fetch(query: ExchangeRatesQuery()).value().source == .network)
        #expect(try await harness.count("ExchangeRates") == 2)
    }

    @Test("a shared answer older than the session's last mutation or timestamp clear is not served to it")
    func sharedNotOlderThanMutationOrClear() async throws {
        let harness = try await ClientHarness("share-newer")
        let alice = try harness.client(.alice, configuration: sharing)
        let bob = try harness.client(.bob, configuration: sharing)
        _ = try await bob.fetch(query: ExchangeRatesQuery()).value()
        harness.clock.advance(seconds: 1)
        _ = try await alice.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 1)).value()
        #expect(try await alice.fetch(query: ExchangeRatesQuery()).value().source == .network)

        let carol = try harness.client(.carol, configuration: sharing)
        harness.clock.advance(seconds: 1)
        carol.clearTimestamps()
        #expect(try await carol.fetch(query: ExchangeRatesQuery()).value().source == .network)
        // A session with neither is served from the answer kept last (carol's).
        let bobAgain = try harness.client(.bob, session: "bob-again", configuration: sharing)
        #expect(try await bobAgain.fetch(query: ExchangeRatesQuery()).value().source == .cache)
        #expect(try await harness.count("ExchangeRates") == 3)
    }

    @Test("a PRIVATE answer (or one with a PRIVATE part) is never served to another session, even with sharing on")
    func privateNeverShared() async throws {
        let harness = try await ClientHarness("share-private")
        let alice = try harness.client(.alice, configuration: sharing)
        let bob = try harness.client(.bob, configuration: sharing)
        #expect(try await alice.fetch(query: CreditScoreQuery()).value().data.creditScore.score == 742)
        let bobs = try await bob.fetch(query: CreditScoreQuery()).value()
        #expect(bobs.source == .network)
        #expect(bobs.data.creditScore == CreditScoreQuery.Score(id: "cs-bob", score: 655, band: "FAIR"))
        #expect(try await harness.count("CreditScore") == 2)

        _ = try await alice.fetch(query: RatesAndScoreQuery()).value()
        let mixed = try await bob.fetch(query: RatesAndScoreQuery()).value()
        #expect(mixed.source == .network)
        #expect(mixed.data.creditScore.id == "cs-bob")
        #expect(try await harness.count("RatesAndScore") == 2)
        #expect(harness.store.sharedPublicResponseCount == 0)
    }

    @Test("an answer that says PUBLIC but varies on the caller, or has a malformed hint, is not shared")
    func callerDependentNotShared() async throws {
        let harness = try await ClientHarness("share-vary")
        let alice = try harness.client(.alice, configuration: sharing)
        let bob = try harness.client(.bob, configuration: sharing)
        try await harness.overrideCacheHints(header: "max-age=60, public", vary: "Accept, Authorization")
        _ = try await alice.fetch(query: ExchangeRatesQuery()).value()
        #expect(try await bob.fetch(query: ExchangeRatesQuery()).value().source == .network)

        try await harness.overrideCacheHints(
            cacheControl: #"{"version":1,"hints":[{"path":["exchangeRates"],"maxAge":60,"scope":"SHARED"}]}"#,
            header: "max-age=60, public")
        _ = try await alice.fetch(query: ExchangeRatesQuery(), cachePolicy: .fetchIgnoringCacheData).value()
        let bobAgain = try harness.client(.bob, session: "bob-again", configuration: sharing)
        #expect(try await bobAgain.fetch(query: ExchangeRatesQuery()).value().source == .network)
        #expect(try await harness.count("ExchangeRates") == 4)
        #expect(harness.store.sharedPublicResponseCount == 0)
    }
}
