import CacheCore
import Testing
import UnifiedCache

@Suite("Caching decision")
struct CachingDecisionTests {
    /// balances never, offers always, payees 60 s, userProfile default; global default 300 s.
    private let settings = CacheSettings(
        defaultTimeout: .seconds(300),
        domainPolicies: [.balances: .never, .offers: .always, .payees: .custom(seconds: 60), .userProfile: .default],
        domainMap: .banking
    )

    @Test(
        "each policy resolves to its timeout for a request that chose its own",
        arguments: [
            (CacheDomain.Name.balances, Timeout.seconds(10), CachingDecision.doNotCache),
            (.offers, .seconds(10), .cache(.never)),
            (.payees, .seconds(10), .cache(.seconds(60))),
            (.userProfile, .seconds(10), .cache(.seconds(10))),
            (.userProfile, .useDefault, .cache(.seconds(300))),
            (.userProfile, .never, .cache(.never)),
            (.statements, .useDefault, .cache(.seconds(300))),
        ]
    )
    func policies(domain: CacheDomain.Name, request: Timeout, expected: CachingDecision) {
        #expect(settings.cachingDecision(forDomain: domain, requestTimeout: request) == expected)
    }

    @Test("a response in no domain keeps its own timeout, the default standing in for useDefault")
    func noDomain() {
        #expect(settings.cachingDecision(forDomain: nil, requestTimeout: .seconds(5)) == .cache(.seconds(5)))
        #expect(settings.cachingDecision(forDomains: [], requestTimeout: .useDefault) == .cache(.seconds(300)))
    }

    @Test("with timeouts switched off nothing expires, but a never domain is still not cached")
    func timeoutsDisabled() {
        var disabled = settings
        disabled.isTimeoutEnabled = false

        #expect(disabled.cachingDecision(forDomain: .payees, requestTimeout: .seconds(10)) == .cache(.never))
        #expect(disabled.cachingDecision(forDomain: .userProfile, requestTimeout: .seconds(10)) == .cache(.never))
        #expect(disabled.cachingDecision(forDomain: nil, requestTimeout: .useDefault) == .cache(.never))
        #expect(disabled.cachingDecision(forDomain: .balances, requestTimeout: .seconds(10)) == .doNotCache)
    }

    @Test("an entry of several domains gets the most cautious decision")
    func severalDomains() {
        #expect(
            settings.cachingDecision(forDomains: [.offers, .payees], requestTimeout: .never) == .cache(.seconds(60)))
        #expect(settings.cachingDecision(forDomains: [.offers, .balances], requestTimeout: .never) == .doNotCache)
        #expect(
            settings.cachingDecision(forDomains: [.userProfile, .payees], requestTimeout: .seconds(5))
                == .cache(.seconds(5)))
        #expect(settings.cachingDecision(forDomains: [.offers, .statements], requestTimeout: .never) == .cache(.never))
    }

    @Test("a REST response finds its domain by key, tag or route")
    func restResponses() {
        #expect(
            settings.cachingDecision(forRESTKey: "balances.101", tags: [], requestTimeout: .seconds(5)) == .doNotCache)
        #expect(
            settings.cachingDecision(forRESTKey: "x", tags: ["path:/api/payees"], requestTimeout: .seconds(5))
                == .cache(.seconds(60)))
        #expect(
            settings.cachingDecision(forRESTKey: "elsewhere", tags: [], requestTimeout: .seconds(5))
                == .cache(.seconds(5)))
    }

    @Test("a GraphQL operation finds its domain by name; an unknown or anonymous one keeps its own timeout")
    func operations() {
        #expect(settings.cachingDecision(forOperation: "AccountBalance", requestTimeout: .seconds(5)) == .doNotCache)
        #expect(settings.cachingDecision(forOperation: "Offers", requestTimeout: .seconds(5)) == .cache(.never))
        #expect(settings.cachingDecision(forOperation: "Dashboard", requestTimeout: .seconds(5)) == .cache(.seconds(5)))
        #expect(settings.cachingDecision(forOperation: nil, requestTimeout: .useDefault) == .cache(.seconds(300)))
    }

    @Test("the store answers with the settings in force")
    func store() throws {
        let store = try SettingsStore(settings: settings)
        #expect(store.cachingDecision(forDomain: .balances, requestTimeout: .seconds(1)) == .doNotCache)

        try store.reload(from: .settings(CacheSettings()))

        #expect(store.cachingDecision(forDomain: .balances, requestTimeout: .seconds(1)) == .cache(.seconds(1)))
        #expect(
            store.cachingDecision(forOperation: "AccountBalance", requestTimeout: .useDefault).timeout == .seconds(300))
        #expect(store.cachingDecision(forRESTKey: "balances.1", tags: [], requestTimeout: .never).timeout == .never)
        #expect(CachingDecision.doNotCache.timeout == nil)
    }
}
