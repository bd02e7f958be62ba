import Foundation
import RESTCache
import Testing

@testable import UnifiedCache

@Suite("Cleared key prefixes: the domain map's and the invalidation rules', made again only when the settings change")
struct ClearedKeyPrefixesTests {
    private let rest = APIService.Configuration(
        invalidationRules: [
            InvalidationRule("POST /api/payments", invalidates: [.keyPrefix("payments."), .domain("x")])
        ]
    )

    private func settings(_ domains: [CacheDomain]) throws -> CacheSettings {
        CacheSettings(domainMap: try CacheDomainMap(domains))
    }

    @Test("the prefixes are the domain map's and the rules', and a reload's new domains are in the next set")
    func reloadChangesThePrefixes() throws {
        let store = try SettingsStore(
            settings: try settings([try CacheDomain(name: "loyalty", restKeyPrefixes: ["loyalty."])]))
        let prefixes = ClearedKeyPrefixes(settings: store, rest: rest)
        #expect(prefixes.current == ["loyalty.", "payments."])
        #expect(prefixes.current == ["loyalty.", "payments."], "the same set from the kept one")

        try store.reload(
            from: .settings(
                try settings([
                    try CacheDomain(name: "cards", restKeyPrefixes: ["cards.", "card."]),
                    try CacheDomain(name: "loyalty", restKeyPrefixes: ["points."]),
                ])))
        #expect(prefixes.current == ["cards.", "card.", "points.", "payments."], "no prefix of the old map is kept")

        try store.reload(from: .settings(CacheSettings()))
        #expect(prefixes.current == ["payments."])
    }
}
