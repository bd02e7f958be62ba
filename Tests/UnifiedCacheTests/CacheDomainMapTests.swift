import Foundation
import Testing
import UnifiedCache

@Suite("Cache domain map")
struct CacheDomainMapTests {
    private let loyalty = try! CacheDomain(
        name: "loyalty",
        restKeyPrefixes: ["loyalty."],
        graphQLOperations: ["LoyaltyPoints"],
        typenames: ["LoyaltyAccount"]
    )

    @Test("registering a new domain makes it findable by name, operation and REST key")
    func register() throws {
        var map = CacheDomainMap()
        try map.register(loyalty)

        #expect(map.count == 1)
        #expect(map["loyalty"] == loyalty)
        #expect(try map.domain(named: "loyalty") == loyalty)
        #expect(map.domainNames(forOperation: "LoyaltyPoints") == ["loyalty"])
        #expect(map.domainNames(forRESTKey: "loyalty.7", tags: []) == ["loyalty"])
        #expect(map.domainNames(forRESTKey: "x", tags: ["loyalty"]) == ["loyalty"])
    }

    @Test("registering a taken name fails and leaves the map unchanged")
    func registerDuplicate() throws {
        var map = try CacheDomainMap([loyalty])
        let other = try CacheDomain(name: "loyalty", graphQLOperations: ["Other"])

        let error = try #require(unifiedError { try map.register(other) })

        #expect(error.code == .duplicateDomain)
        #expect(error.place == "loyalty")
        #expect(map["loyalty"] == loyalty)
        #expect(map.domainNames(forOperation: "Other").isEmpty)
        #expect(unifiedError { try CacheDomainMap([loyalty, other]) }?.code == .duplicateDomain)
    }

    @Test("merging adds members to the domain of the same name and indexes them")
    func merge() throws {
        var map = try CacheDomainMap([loyalty])
        map.merge(try CacheDomain(name: "loyalty", graphQLOperations: ["LoyaltyHistory"]))

        #expect(map["loyalty"]?.graphQLOperations == ["LoyaltyPoints", "LoyaltyHistory"])
        #expect(map["loyalty"]?.typenames == ["LoyaltyAccount"])
        #expect(map.domainNames(forOperation: "LoyaltyHistory") == ["loyalty"])
        #expect(map.domainNames(forOperation: "LoyaltyPoints") == ["loyalty"])
    }

    @Test("merging a map adds its new domains and extends the existing ones")
    func mergeMap() throws {
        var map = CacheDomainMap.banking
        let extra = try CacheDomainMap([
            loyalty, try CacheDomain(name: "cardsExperience", graphQLOperations: ["CardList"]),
        ])

        map.merge(extra)

        #expect(map.count == CacheDomainMap.banking.count + 1)
        #expect(map.domainNames(forOperation: "CardList") == [.cardsExperience])
        #expect(map.domainNames(forOperation: "CardsExperience") == [.cardsExperience])
    }

    @Test("replacing swaps the domain's members, drops the old ones from the indexes and returns the old domain")
    func replace() throws {
        var map = try CacheDomainMap([loyalty])
        let replacement = try CacheDomain(name: "loyalty", graphQLOperations: ["LoyaltyV2"])

        let previous = map.replace(replacement)

        #expect(previous == loyalty)
        #expect(map["loyalty"] == replacement)
        #expect(map.domainNames(forOperation: "LoyaltyPoints").isEmpty)
        #expect(map.domainNames(forOperation: "LoyaltyV2") == ["loyalty"])
        #expect(map.domainNames(forRESTKey: "loyalty.1", tags: []).isEmpty)  // the prefix went with the old one
        #expect(map.domainNames(forRESTKey: "x", tags: ["loyalty"]) == ["loyalty"])  // the default tag stays
    }

    @Test("removing a domain forgets it everywhere")
    func remove() throws {
        var map = try CacheDomainMap([loyalty])

        #expect(map.remove(named: "loyalty") == loyalty)
        #expect(map.remove(named: "loyalty") == nil)
        #expect(map.isEmpty)
        #expect(map.domainNames(forOperation: "LoyaltyPoints").isEmpty)
        #expect(map.domainNames(forRESTKey: "loyalty.1", tags: ["loyalty"]).isEmpty)
    }

    @Test("looking up an unknown domain is a typed error listing the known ones")
    func unknownDomain() throws {
        let error = try #require(unifiedError { try CacheDomainMap.banking.domain(named: "balance") })

        #expect(error.code == .unknownDomain)
        #expect(error.place == "balance")
        #expect(error.message.contains("balances"))
    }

    @Test("a map encodes as its domains sorted by name and decodes to an equal map")
    func codable() throws {
        let data = try JSONEncoder().encode(CacheDomainMap.banking)
        let decoded = try JSONDecoder().decode(CacheDomainMap.self, from: data)

        #expect(decoded == .banking)
        #expect(decoded.domainNames(forOperation: "AccountBalance") == [.balances])
        let names = try JSONDecoder().decode([CacheDomain].self, from: data).map(\.name)
        #expect(names == names.sorted())
    }

    @Test("a map with two domains of one name does not decode")
    func codableDuplicate() throws {
        let json = #"[{"name": "a", "typenames": ["A"]}, {"name": "a", "typenames": ["B"]}]"#

        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CacheDomainMap.self, from: Data(json.utf8))
        }
    }
}
