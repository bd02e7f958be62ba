import Foundation
import Testing
import UnifiedCache

@Suite("Domain cache policy")
struct DomainCachePolicyTests {
    @Test(
        "the text form reads the seed's four choices",
        arguments: [
            ("never", DomainCachePolicy.never), ("ALWAYS", .always), (" Default ", .default),
            ("30", .custom(seconds: 30)), ("2.5", .custom(seconds: 2.5)), ("0", .custom(seconds: 0)),
            ("1e3", .custom(seconds: 1000)),
        ]
    )
    func parsing(text: String, expected: DomainCachePolicy) throws {
        #expect(try DomainCachePolicy(parsing: text) == expected)
    }

    @Test(
        "anything else is refused with the place named",
        arguments: ["sometimes", "", "-1", "nan", "inf", "30s", "custom"]
    )
    func badText(text: String) throws {
        let error = try #require(unifiedError { try DomainCachePolicy(parsing: text, place: "UCACHE_DOMAIN_BALANCES") })

        #expect(error.code == .invalidSettings)
        #expect(error.place == "UCACHE_DOMAIN_BALANCES")
    }

    @Test("the description is the text form and reads back to the same policy")
    func description() throws {
        for policy in [DomainCachePolicy.never, .always, .default, .custom(seconds: 30), .custom(seconds: 0.25)] {
            #expect(try DomainCachePolicy(parsing: policy.description) == policy)
        }
        #expect(DomainCachePolicy.custom(seconds: 30).description == "30")
    }

    @Test("JSON holds the words as strings and custom policies as numbers")
    func codable() throws {
        let policies: [DomainCachePolicy] = [.never, .always, .default, .custom(seconds: 45)]
        let data = try JSONEncoder().encode(policies)

        #expect(String(decoding: data, as: UTF8.self) == #"["never","always","default",45]"#)
        #expect(try JSONDecoder().decode([DomainCachePolicy].self, from: data) == policies)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([DomainCachePolicy].self, from: Data("[-5]".utf8))
        }
    }
}
