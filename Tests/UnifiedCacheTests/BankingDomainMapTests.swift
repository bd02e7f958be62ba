import Foundation
import Testing
import UnifiedCache

@Suite("Built-in banking domain map")
struct BankingDomainMapTests {
    private let map = CacheDomainMap.banking

    /// Type name → field names, read from the fixture server's SDL (`Fixtures/bank/schema.py`).
    private static func fixtureSchema() throws -> [String: Set<String>] {
        let source = try Repository.text("Fixtures/bank/schema.py")
        let start = try #require(source.range(of: "SDL = \"\"\""))
        let end = try #require(source.range(of: "\"\"\"", range: start.upperBound..<source.endIndex))
        let sdl = String(source[start.upperBound..<end.lowerBound])
        var types: [String: Set<String>] = [:]
        let typeDefinition = try Regex(#"(?:type|interface)\s+(\w+)[^{]*\{([^}]*)\}"#)
        let fieldDefinition = try Regex(#"(\w+)\s*(?:\([^)]*\))?\s*:"#)
        for match in sdl.matches(of: typeDefinition) {
            let name = try #require(match.output[1].substring)
            let body = try #require(match.output[2].substring)
            let bodyWithoutComments = body.split(separator: "\n").filter { !$0.contains("\"") }.joined(separator: "\n")
            types[String(name)] = Set(
                bodyWithoutComments.matches(of: fieldDefinition).compactMap { $0.output[1].substring.map(String.init) }
            )
        }
        return types
    }

    /// `GET` routes of the bank (not the test routes), with `{parameters}` filled in, read from
    /// `Fixtures/bank/rest.py`.
    private static func fixtureGETRoutes() throws -> [String] {
        let source = try Repository.text("Fixtures/bank/rest.py")
        let route = try Regex(#"router\.add\("GET", "([^"]+)""#)
        return try source.matches(of: route).map { match in
            let template = String(try #require(match.output[1].substring))
            return template.replacing(try Regex(#"\{[^}]+\}"#), with: "x1")
        }
    }

    @Test("the map has exactly the twelve domains of the granular clearing methods")
    func granularDomains() {
        #expect(map.names.sorted() == CacheDomain.Name.granularMethodDomains.sorted())
        #expect(CacheDomain.Name.granularMethodDomains.count == 12)
        #expect(Set(CacheDomain.Name.granularMethodDomains).count == 12)
    }

    @Test("every built-in domain passes validation and has a summary")
    func valid() throws {
        for domain in map.domains {
            try domain.validate()
            #expect(!domain.summary.isEmpty, "\(domain.name)")
            #expect(domain.restDomains == [domain.name.rawValue])
            #expect(domain.restKeyPrefixes.contains(domain.name.rawValue + "."))
        }
    }

    @Test("every typename and schema coordinate exists in the fixture's GraphQL schema")
    func matchesSchema() throws {
        let schema = try Self.fixtureSchema()
        #expect(schema["Account"]?.contains("availableBalance") == true)  // the SDL reader works

        for domain in map.domains {
            for typename in domain.typenames {
                #expect(schema[typename] != nil, "\(domain.name): type \(typename)")
            }
            for coordinate in domain.schemaCoordinates {
                #expect(
                    schema[coordinate.typename]?.contains(coordinate.field) == true, "\(domain.name): \(coordinate)")
            }
        }
    }

    @Test("every GET route of the fixture bank belongs to exactly one domain, and every pattern matches a route")
    func matchesRoutes() throws {
        let routes = try Self.fixtureGETRoutes()
        #expect(routes.count >= 12)

        for path in routes {
            let owners = map.domains.filter { $0.containsRESTRoute(method: "GET", path: path) }.map(\.name)
            #expect(owners.count == 1, "\(path) belongs to \(owners)")
        }
        for domain in map.domains {
            for pattern in domain.restPathPatterns {
                let probe = try CacheDomain(name: "probe", restPathPatterns: [pattern])
                #expect(routes.contains { probe.containsRESTRoute(method: "GET", path: $0) }, "\(pattern)")
            }
        }
    }

    @Test("an operation name belongs to one domain only")
    func operationsAreDistinct() {
        var owners: [String: [CacheDomain.Name]] = [:]
        for domain in map.domains {
            for operation in domain.graphQLOperations {
                owners[operation, default: []].append(domain.name)
            }
        }
        #expect(owners.values.allSatisfy { $0.count == 1 }, "\(owners.filter { $0.value.count > 1 })")
    }

    @Test("no field of a shared record belongs to two domains")
    func fieldsAreDistinct() {
        var owners: [SchemaCoordinate: [CacheDomain.Name]] = [:]
        for domain in map.domains {
            for coordinate in domain.schemaCoordinates {
                owners[coordinate, default: []].append(domain.name)
            }
        }
        #expect(owners.values.allSatisfy { $0.count == 1 })
        let wholeTypes = map.domains.flatMap(\.typenames)
        #expect(Set(wholeTypes).count == wholeTypes.count)
        #expect(!map.domains.contains { $0.typenames.contains("Account") })
    }

    @Test("balances evicts the two balance fields of Account and leaves the rest of the record")
    func balances() throws {
        let balances = try map.domain(named: .balances)

        #expect(balances.containsGraphQLField(typename: "Account", field: "balance"))
        #expect(balances.containsGraphQLField(typename: "Account", field: "availableBalance"))
        #expect(!balances.containsGraphQLField(typename: "Account", field: "name"))
        #expect(!balances.containsGraphQLField(typename: "Account", field: "id"))
        #expect(balances.graphQLOperations.contains("AccountBalance"))
    }

    @Test(
        "REST keys and routes used by callers find their domain",
        arguments: [
            (RESTEntry(key: "balances.101"), CacheDomain.Name.balances),
            (RESTEntry(key: "cardsExperienceV3.page_1.key"), .cardsExperience),
            (RESTEntry(key: "accountSummary.accounts"), .accountSummary),
            (RESTEntry(key: "custom", tags: ["payees"]), .payees),
            (RESTEntry(key: "custom", tags: ["path:/api/accounts/101/transactions"]), .transactionHistory),
            (RESTEntry(key: "custom", tags: ["path:/api/accounts/by-token/atok-101"]), .accountSummary),
            (RESTEntry(key: "custom", tags: ["path:/api/feature-flags"]), .featureFlags),
        ]
    )
    func restLookup(entry: RESTEntry, expected: CacheDomain.Name) {
        #expect(map.domainNames(forRESTKey: entry.key, tags: entry.tags) == [expected])
    }

    @Test("a REST key outside every domain finds none")
    func restLookupMiss() {
        #expect(map.domainNames(forRESTKey: "balancesHistory.1", tags: ["path:/api/echo"]).isEmpty)
    }
}

/// A REST entry's key and tags, for the lookup table.
struct RESTEntry: Sendable, CustomTestStringConvertible {
    var key: String
    var tags: Set<String> = []

    var testDescription: String {
        tags.isEmpty ? key : "\(key) \(tags.sorted())"
    }
}
