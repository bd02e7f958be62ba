import Foundation
import Testing
import UnifiedCache

@Suite("Cache domains")
struct CacheDomainTests {
    private func loyalty() throws -> CacheDomain {
        try CacheDomain(
            name: "loyalty",
            summary: "Loyalty points.",
            restKeyPrefixes: ["loyalty."],
            restPathPatterns: ["/api/loyalty/*"],
            graphQLOperations: ["LoyaltyPoints"],
            typenames: ["LoyaltyAccount"],
            schemaCoordinates: [SchemaCoordinate("Account.points")]
        )
    }

    @Test("a domain keeps what it was given and tags REST entries with its name by default")
    func members() throws {
        let domain = try loyalty()

        #expect(domain.name == "loyalty")
        #expect(domain.restDomains == ["loyalty"])
        #expect(domain.restKeyPrefixes == ["loyalty."])
        #expect(domain.graphQLOperations == ["LoyaltyPoints"])
        #expect(domain.typenames == ["LoyaltyAccount"])
        #expect(domain.schemaCoordinates == [try SchemaCoordinate(typename: "Account", field: "points")])
        #expect(!domain.isEmpty)
    }

    @Test("a schema coordinate is Type.field of two GraphQL names")
    func coordinates() throws {
        let coordinate = try SchemaCoordinate("Account.availableBalance")

        #expect(coordinate.typename == "Account")
        #expect(coordinate.field == "availableBalance")
        #expect(coordinate.description == "Account.availableBalance")
        #expect(try SchemaCoordinate("_Private._field").field == "_field")
    }

    @Test(
        "a coordinate that is not Type.field is refused with a typed error",
        arguments: [
            "Account", "Account.", ".balance", "Account.balance.extra", "Account.bal ance", " Account.balance",
            "Account.transactions(first:)", "1Account.balance", "Account.2x", "Account.__typename", "__Type.name", "",
            "Account..balance", "Accoünt.balance",
        ]
    )
    func badCoordinates(text: String) throws {
        let error = try #require(unifiedError { try SchemaCoordinate(text) })

        #expect(error.code == .invalidDomain)
        #expect(error.message.contains("coordinate") || error.message.contains("introspection"))
    }

    @Test("a bad coordinate in a domain's Codable form names the domain field through the decoding error")
    func badCoordinateDecoding() throws {
        let json = #"{"name": "balances", "schemaCoordinates": ["Account.balance", "Account"]}"#

        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CacheDomain.self, from: Data(json.utf8))
        }
    }

    @Test("an empty key prefix is refused with the field named")
    func emptyPrefix() throws {
        let error = try #require(
            unifiedError { try CacheDomain(name: "balances", restKeyPrefixes: ["balances.", ""]) })

        #expect(error.code == .invalidDomain)
        #expect(error.place == "balances.restKeyPrefixes")
    }

    @Test(
        "members that are not names, tags or patterns are refused with the field named",
        arguments: [
            (CacheDomainFieldCase.operation("Account Balance"), "x.graphQLOperations"),
            (.operation("account-balance"), "x.graphQLOperations"),
            (.typename("Card!"), "x.typenames"),
            (.typename("__Schema"), "x.typenames"),
            (.tag(""), "x.restDomains"),
            (.tag("cards\n"), "x.restDomains"),
            (.prefix(" cards."), "x.restKeyPrefixes"),
            (.path("api/cards"), "x.restPathPatterns"),
            (.path("/api/cards?page=1"), "x.restPathPatterns"),
            (.path("get /api/cards"), "x.restPathPatterns"),
            (.path("/api/my cards"), "x.restPathPatterns"),
        ]
    )
    func badMembers(member: CacheDomainFieldCase, place: String) throws {
        let error = try #require(unifiedError { try member.domain(named: "x") })

        #expect(error.code == .invalidDomain)
        #expect(error.place == place)
    }

    @Test("a domain that selects nothing is refused")
    func emptyDomain() throws {
        let error = try #require(unifiedError { try CacheDomain(name: "nothing", restDomains: []) })

        #expect(error.code == .invalidDomain)
        #expect(error.place == "nothing")
    }

    @Test("a domain name follows the GraphQL name rule")
    func names() throws {
        let text = "transactionHistory"
        #expect(try CacheDomain.Name(text).rawValue == "transactionHistory")
        #expect(try CacheDomain.Name(text) == .transactionHistory)
        for bad in ["", "transaction-history", "transaction history", "balances.", "1st", "caché"] {
            #expect(unifiedError { try CacheDomain.Name(bad) }?.code == .invalidDomain)
        }
    }

    @Test("merging adds the other domain's members and keeps the name and summary")
    func merging() throws {
        let base = try loyalty()
        let extra = try CacheDomain(name: "other", summary: "ignored", graphQLOperations: ["LoyaltyHistory"])

        let merged = base.merging(extra)

        #expect(merged.name == "loyalty")
        #expect(merged.summary == "Loyalty points.")
        #expect(merged.graphQLOperations == ["LoyaltyPoints", "LoyaltyHistory"])
        #expect(merged.restDomains == ["loyalty", "other"])
        #expect(merged.typenames == base.typenames)
    }

    @Test("a REST entry belongs to a domain by tag, key prefix or route tag")
    func restMembership() throws {
        let domain = try loyalty()

        #expect(domain.containsRESTEntry(key: "anything", tags: ["loyalty"]))
        #expect(domain.containsRESTEntry(key: "loyalty.101", tags: []))
        #expect(domain.containsRESTEntry(key: "custom-key", tags: ["path:/api/loyalty/101"]))
        #expect(domain.containsRESTRoute(method: "GET", path: "/api/loyalty/7"))
        #expect(!domain.containsRESTEntry(key: "loyaltyHistory.1", tags: ["path:/api/loyalty/7/history"]))
        #expect(!domain.containsRESTEntry(key: "balances.101", tags: ["balances"]))
    }

    @Test("a GraphQL field belongs to a domain by typename or coordinate")
    func graphQLMembership() throws {
        let domain = try loyalty()

        #expect(domain.containsGraphQLField(typename: "LoyaltyAccount", field: "anything"))
        #expect(domain.containsGraphQLField(typename: "Account", field: "points"))
        #expect(!domain.containsGraphQLField(typename: "Account", field: "balance"))
    }

    @Test("a domain encodes with sorted members and decodes to an equal domain")
    func codableRoundTrip() throws {
        let domain = try loyalty().merging(try CacheDomain(name: "loyalty", graphQLOperations: ["ALoyalty"]))

        let data = try JSONEncoder().encode(domain)
        let text = String(decoding: data, as: UTF8.self)

        #expect(try JSONDecoder().decode(CacheDomain.self, from: data) == domain)
        #expect(text.contains(#""graphQLOperations":["ALoyalty","LoyaltyPoints"]"#))
    }
}

/// One domain member of one kind, for the table of refused members.
enum CacheDomainFieldCase: Sendable, CustomTestStringConvertible {
    case operation(String)
    case typename(String)
    case tag(String)
    case prefix(String)
    case path(String)

    func domain(named name: CacheDomain.Name) throws(UnifiedCacheError) -> CacheDomain {
        switch self {
        case .operation(let value): return try CacheDomain(name: name, graphQLOperations: [value])
        case .typename(let value): return try CacheDomain(name: name, typenames: [value])
        case .tag(let value): return try CacheDomain(name: name, restDomains: [value])
        case .prefix(let value): return try CacheDomain(name: name, restKeyPrefixes: [value])
        case .path(let value): return try CacheDomain(name: name, restPathPatterns: [value])
        }
    }

    var testDescription: String {
        switch self {
        case .operation(let value): return "operation \(value.debugDescription)"
        case .typename(let value): return "typename \(value.debugDescription)"
        case .tag(let value): return "tag \(value.debugDescription)"
        case .prefix(let value): return "prefix \(value.debugDescription)"
        case .path(let value): return "path \(value.debugDescription)"
        }
    }
}
