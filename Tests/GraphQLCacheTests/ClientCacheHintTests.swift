import CacheCore
import CurlHTTP
import FixtureSupport
import Foundation
import GraphQLCache
import Testing

// MARK: - Operations on the fixture's hinted fields (Fixtures/bank/cache_hints.py)

/// `creditScore`: PRIVATE, maxAge 120, the score 30; the header says `max-age=30, private`.
struct CreditScoreQuery: GraphQLQuery {
    static let document = "query CreditScore { creditScore { id score band } }"
    static let operationName = "CreditScore"

    struct Data: Decodable, Sendable, Equatable {
        var creditScore: Score
    }

    struct Score: Decodable, Sendable, Equatable {
        var id: String
        var score: Int
        var band: String
    }
}

/// `exchangeRates`: PUBLIC, maxAge 300, each rate 60; the header says `max-age=60, public`.
struct ExchangeRatesQuery: GraphQLQuery {
    static let document = "query ExchangeRates { exchangeRates { currency rate } }"
    static let operationName = "ExchangeRates"

    struct Data: Decodable, Sendable, Equatable {
        var exchangeRates: [Rate]
    }

    struct Rate: Decodable, Sendable, Equatable {
        var currency: String
        var rate: Double
    }
}

/// The rates beside an unhinted root field: hints only, no header (not every root field has a hint).
struct RatesAndProfileQuery: GraphQLQuery {
    static let document = "query RatesAndProfile { exchangeRates { currency rate } profile { id } }"
    static let operationName = "RatesAndProfile"

    struct Data: Decodable, Sendable, Equatable {
        var exchangeRates: [ExchangeRatesQuery.Rate]
        var profile: Profile
    }

    struct Profile: Decodable, Sendable, Equatable {
        var id: String
    }
}

/// Only the currencies of the rates: fields whose own hint is 300 s.
struct RateCurrenciesQuery: GraphQLQuery {
    static let document = "query RateCurrencies { exchangeRates { currency } }"
    static let operationName = "RateCurrencies"

    struct Data: Decodable, Sendable, Equatable {
        var exchangeRates: [Currency]
    }

    struct Currency: Decodable, Sendable, Equatable {
        var currency: String
    }
}

/// The public rates and the private score in one answer: PRIVATE as a whole.
struct RatesAndScoreQuery: GraphQLQuery {
    static let document = "query RatesAndScore { exchangeRates { currency rate } creditScore { id score band } }"
    static let operationName = "RatesAndScore"

    struct Data: Decodable, Sendable, Equatable {
        var exchangeRates: [ExchangeRatesQuery.Rate]
        var creditScore: CreditScoreQuery.Score
    }
}

/// A new code on every call, answered with `Cache-Control: no-store`.
struct OneTimeCodeQuery: GraphQLQuery {
    static let document = "query OneTimeCode { oneTimeCode }"
    static let operationName = "OneTimeCode"

    struct Data: Decodable, Sendable, Equatable {
        var oneTimeCode: String
    }
}

extension ClientHarness {
    /// Makes every GraphQL answer of the tenant carry exactly these hints and headers (`cacheControl` is raw JSON).
    func overrideCacheHints(cacheControl: String? = nil, header: String? = nil, vary: String? = nil) async throws {
        var members: [String] = []
        if let cacheControl {
            members.append(#""cacheControl":"# + cacheControl)
        }
        if let header {
            members.append(#""header":"# + String(decoding: try JSONEncoder().encode(header), as: UTF8.self))
        }
        if let vary {
            members.append(#""vary":"# + String(decoding: try JSONEncoder().encode(vary), as: UTF8.self))
        }
        let response = try await tenant.server.controlClient.execute(
            CurlHTTPClient.Request(
                method: .post, url: tenant.url("/__control/cache-hints"),
                headers: ["Content-Type": "application/json"],
                body: Data(("{" + members.joined(separator: ",") + "}").utf8)))
        guard response.isSuccess else {
            throw StoreTestFailure("the cache hints override was refused with \(response.status)")
        }
    }
}

@Suite("Client: the upstream's cache hints (Cache-Control and extensions.cacheControl)")
struct ClientCacheHintTests {
    @Test("a max-age is honoured: a hit within it, one refetch once the test clock passes it")
    func maxAgeHonoured() async throws {
        let harness = try await ClientHarness("hints-max-age")
        let client = try harness.client()
        let first = try await client.fetch(query: CreditScoreQuery()).value()
        #expect(first.data.creditScore.score == 742)
        #expect(first.wasStored)
        harness.clock.advance(seconds: 30)  // the header's max-age=30 (and the score's hint): still fresh
        #expect(try await client.fetch(query: CreditScoreQuery()).value().source == .cache)
        #expect(try await harness.count("CreditScore") == 1)
        harness.clock.advance(seconds: 1)  // past it, long before the default 300 s
        #expect(try await client.fetch(query: CreditScoreQuery()).value().source == .network)
        #expect(try await harness.count("CreditScore") == 2)
    }

    @Test("each field gets the smallest maxAge on its path: the rates 60 s, the currencies 300 s, unhinted fields none")
    func perPathMinimum() async throws {
        let harness = try await ClientHarness("hints-per-path")
        let client = try harness.client()
        _ = try await client.fetch(query: RatesAndProfileQuery()).value()
        let scope = CacheScope.session("alice")
        let rate = try #require(harness.store.record("QUERY_ROOT.exchangeRates.1", in: scope))
        #expect(rate.fields["rate"]?.upstreamMaxAge == 60)
        #expect(rate.fields["currency"]?.upstreamMaxAge == 300)
        let root = try #require(harness.store.record(GraphQLRecord.queryRootKey, in: scope))
        #expect(root.fields["exchangeRates"]?.upstreamMaxAge == 300)
        #expect(root.fields["profile"]?.upstreamMaxAge == nil)
        #expect(harness.store.record("Profile:alice", in: scope)?.fields["id"]?.upstreamMaxAge == nil)

        harness.clock.advance(seconds: 61)
        // The currencies are within their 300 s: answered from the cache without asking.
        let currencies = try await client.fetch(query: RateCurrenciesQuery()).value()
        #expect(currencies.source == .cache)
        #expect(currencies.data.exchangeRates.map(\.currency) == ["USD", "EUR", "GBP"])
        #expect(try await harness.count("RateCurrencies") == 0)
        // The rates are past their 60 s: the query that reads them goes upstream.
        #expect(try await client.fetch(query: RatesAndProfileQuery()).value().source == .network)
        #expect(try await harness.count("RatesAndProfile") == 2)
    }

    @Test("Cache-Control: no-store: the answer is delivered, never stored, and asked for again")
    func noStoreNotStored() async throws {
        let harness = try await ClientHarness("hints-no-store")
        let client = try harness.client()
        let first = try await client.fetch(query: OneTimeCodeQuery()).value()
        let second = try await client.fetch(query: OneTimeCodeQuery()).value()
        #expect(!first.wasStored && !second.wasStored)
        #expect(first.data.oneTimeCode != second.data.oneTimeCode)
        #expect(second.source == .network)
        #expect(try await harness.count("OneTimeCode") == 2)
        let root = harness.store.record(GraphQLRecord.queryRootKey, in: .session("alice"))
        #expect(root?.fields["oneTimeCode"] == nil)
        let cacheOnly = await client.fetch(query: OneTimeCodeQuery(), cachePolicy: .returnCacheDataDontFetch)
        #expect(cacheOnly.failure?.code == .cacheMiss)
    }

    @Test("a local type or field rule comes before the hint: a shorter one caps it, a longer one overrides it")
    func localRuleBeforeHint() async throws {
        let harness = try await ClientHarness("hints-local-rule")
        let shorter = try harness.client(
            session: "shorter", cacheConfig: GraphQLCacheConfig(typeTimeouts: ["CreditScore": 10, "Query": 10]))
        _ = try await shorter.fetch(query: CreditScoreQuery()).value()
        harness.clock.advance(seconds: 11)  // within the upstream's 30 s, past the local 10 s
        #expect(try await shorter.fetch(query: CreditScoreQuery()).value().source == .network)

        let longer = try harness.client(
            session: "longer", cacheConfig: GraphQLCacheConfig(typeTimeouts: ["CreditScore": 600, "Query": 600]))
        _ = try await longer.fetch(query: CreditScoreQuery()).value()
        harness.clock.advance(seconds: 100)  // past the upstream's 30 s, within the local 600 s
        #expect(try await longer.fetch(query: CreditScoreQuery()).value().source == .cache)

        let field = try harness.client(
            session: "field",
            cacheConfig: GraphQLCacheConfig(
                typeTimeouts: ["Query": 600], fieldTimeouts: ["CreditScore.score": 5, "CreditScore.id": 600]))
        _ = try await field.fetch(query: CreditScoreQuery()).value()
        harness.clock.advance(seconds: 6)  // the score's local 5 s ends first; `band` keeps the hint (30 s)
        #expect(try await field.fetch(query: CreditScoreQuery()).value().source == .network)
        #expect(try await harness.count("CreditScore") == 5)
    }

    @Test("an explicit query timeout overrides every hint, longer or shorter")
    func explicitTimeoutWins() async throws {
        let harness = try await ClientHarness("hints-explicit")
        let client = try harness.client()
        _ = try await client.fetch(query: CreditScoreQuery(), cacheTimeout: 600).value()
        harness.clock.advance(seconds: 100)
        #expect(try await client.fetch(query: CreditScoreQuery(), cacheTimeout: 600).value().source == .cache)
        #expect(try await client.fetch(query: CreditScoreQuery(), cacheTimeout: .never).value().source == .cache)
        // Without it the hint applies again: 100 s is past the 30 s.
        #expect(try await client.fetch(query: CreditScoreQuery()).value().source == .network)
        harness.clock.advance(seconds: 6)
        #expect(try await client.fetch(query: CreditScoreQuery(), cacheTimeout: 5).value().source == .network)
        #expect(try await harness.count("CreditScore") == 3)
    }

    @Test(
        "malformed hints and headers are ignored: the answer is stored and judged by the local rules, nothing traps",
        arguments: [
            (#"{"version":1,"hints":[{"path":["creditScore"],"maxAge":"ten"}]}"#, "max-age=ten"),
            (#"{"version":1,"hints":[{"path":["creditScore"],"maxAge":-5}]}"#, "max-age=-1"),
            (#"{"version":1,"hints":[{"path":["creditScore"],"maxAge":1e300}]}"#, "max-age=1e999"),
            (#"{"version":1,"hints":[{"path":["creditScore"],"maxAge":99999999999999999999999}]}"#, "max-age=,"),
            (#"{"version":1,"hints":[{"path":"creditScore","maxAge":1},{"path":[-1],"maxAge":1}]}"#, ", =, ;"),
            (#"{"version":1,"hints":[{"path":[{"a":1}],"maxAge":1},{"path":[1.5],"maxAge":1},7,null]}"#, "max-age"),
            (#"{"version":2,"hints":[{"path":["creditScore"],"maxAge":1}]}"#, "max-age=\"\""),
            (#"{"version":1,"hints":{"path":["creditScore"],"maxAge":1}}"#, "max-age=nan"),
            (#""everything""#, "max-age=inf"),
            ("[1,2]", "max-age=-0"),
        ])
    func malformedIgnored(cacheControl: String, header: String) async throws {
        let harness = try await ClientHarness("hints-malformed")
        try await harness.overrideCacheHints(cacheControl: cacheControl, header: header)
        let client = try harness.client()
        let first = try await client.fetch(query: CreditScoreQuery()).value()
        #expect(first.wasStored)
        let root = harness.store.record(GraphQLRecord.queryRootKey, in: .session("alice"))
        let hinted = root?.fields["creditScore"]?.upstreamMaxAge
        // "max-age=-0" is a valid 0; every other header and hint above is refused.
        #expect(hinted == (header == "max-age=-0" ? 0 : nil))
        harness.clock.advance(seconds: 299)
        let later = try await client.fetch(query: CreditScoreQuery()).value()
        #expect(later.source == (header == "max-age=-0" ? .network : .cache))
    }
}
