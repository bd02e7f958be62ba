import CacheCore
import Foundation
import Testing
import UnifiedCache

@Suite("Settings file")
struct SettingsFileTests {
    /// The example of `CacheSettings.init(json:source:)`'s documentation, kept identical.
    static let documentedExample = """
        {
          "//": "UnifiedCache settings; every member is optional",
          "timeouts": { "enabled": true, "default": 300 },
          "memory": {
            "processBudgetBytes": 536870912,
            "maxEntriesPerSession": 10000,
            "maxBytesPerSession": 67108864
          },
          "sessions": { "idleTimeoutSeconds": 1800, "maxSessions": 100000 },
          "clearAffectedDomainsOnChange": true,
          "domainMap": "banking",
          "domains": {
            "balances": { "policy": 30 },
            "payees": { "policy": "custom", "seconds": 600 },
            "userProfile": { "policy": "always" },
            "notifications": { "policy": "never" },
            "cardsExperience": { "graphQLOperations": ["CardList"] },
            "statements": { "members": "replace", "restKeyPrefixes": ["statementsV2."] },
            "loyalty": {
              "summary": "Loyalty points of each account.",
              "policy": "default",
              "restKeyPrefixes": ["loyalty."],
              "restPathPatterns": ["/api/loyalty/*"],
              "graphQLOperations": ["LoyaltyPoints"],
              "typenames": ["LoyaltyAccount"],
              "schemaCoordinates": ["Account.points"]
            }
          }
        }
        """

    @Test("the documented example reads as documented")
    func documentedExample() throws {
        let settings = try parseSettings(Self.documentedExample)

        #expect(settings.isTimeoutEnabled)
        #expect(settings.defaultTimeout == .seconds(300))
        #expect(settings.memory == CacheSettings.MemoryLimits())
        #expect(settings.sessions == CacheSettings.SessionLimits())
        #expect(settings.clearsAffectedDomainsOnChange)
        #expect(settings.policy(for: .balances) == .custom(seconds: 30))
        #expect(settings.policy(for: .payees) == .custom(seconds: 600))
        #expect(settings.policy(for: .userProfile) == .always)
        #expect(settings.policy(for: .notifications) == .never)
        #expect(settings.policy(for: .offers) == .default)
        #expect(settings.domainMap[.cardsExperience]?.graphQLOperations.isSuperset(of: ["CardList", "Cards"]) == true)
        let statements = try #require(settings.domainMap[.statements])
        #expect(statements.restKeyPrefixes == ["statementsV2."])
        #expect(statements.graphQLOperations.isEmpty)
        #expect(statements.restDomains == ["statements"])
        #expect(statements.summary == CacheDomainMap.banking[.statements]?.summary)
        let loyalty = try #require(settings.domainMap["loyalty"])
        #expect(loyalty.restDomains == ["loyalty"])
        #expect(loyalty.schemaCoordinates == [try SchemaCoordinate("Account.points")])
        #expect(settings.domainMap.count == CacheDomainMap.banking.count + 1)
    }

    @Test("an empty document gives the defaults")
    func emptyDocument() throws {
        #expect(try parseSettings("{}") == CacheSettings())
        #expect(try parseSettings(" \n{ \"//\": \"nothing yet\" }\n") == CacheSettings())
    }

    @Test("timeouts may be switched off and the default may be never")
    func timeouts() throws {
        let settings = try parseSettings(#"{"timeouts": {"enabled": false, "default": "never"}}"#)

        #expect(!settings.isTimeoutEnabled)
        #expect(settings.defaultTimeout == .never)
    }

    @Test("an empty base map keeps only the file's domains")
    func emptyBase() throws {
        let settings = try parseSettings(#"{"domains": {"cards": {"typenames": ["Card"]}}, "domainMap": "empty"}"#)

        #expect(settings.domainMap.names == ["cards"])
    }

    @Test("a syntax error is refused with its line and column")
    func syntaxError() throws {
        let text = """
            {
              "timeouts": { "enabled": true }
              "memory": {}
            }
            """
        let error = try #require(unifiedError { try parseSettings(text, source: "/etc/ucache.json") })

        #expect(error.code == .invalidSettings)
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.message.contains("expected ',' or '}'"))
        #expect(error.message.contains("/etc/ucache.json"))
        #expect(error.description.contains("(line 3, column 3)"))
    }

    @Test(
        "broken JSON is refused with a position",
        arguments: [
            ("", Position(1, 1)), ("{", Position(1, 2)), (#"{"a" 1}"#, Position(1, 6)),
            (#"{"timeouts": tru}"#, Position(1, 17)), ("{} {}", Position(1, 4)),
            (#"{"x": "a\qb"}"#, Position(1, 10)), ("{\"x\": \"a\nb\"}", Position(1, 9)),
            (#"{"x": 01}"#, Position(1, 8)), (#"{"x": 1.}"#, Position(1, 9)),
            (#"{"x": [1,]}"#, Position(1, 10)), ("{\"é\": \"ü\" ,, }", Position(1, 12)),
            (#"{"x": "\ud800"}"#, Position(1, 14)),
        ]
    )
    func brokenJSON(text: String, position: Position) throws {
        let error = try #require(unifiedError { try parseSettings(text) })

        #expect(error.code == .invalidSettings)
        #expect(error.line == position.line)
        #expect(error.column == position.column)
    }

    @Test("bytes that are not UTF-8, duplicate members and deep nesting are refused")
    func hostileInput() throws {
        let invalidUTF8: [UInt8] = Array(#"{"domains": {"a"#.utf8) + [0xFF] + Array(#"": {}}}"#.utf8)
        #expect(unifiedError { try CacheSettings(json: invalidUTF8) }?.code == .invalidSettings)

        let duplicate = try #require(unifiedError { try parseSettings(#"{"memory": {}, "memory": {}}"#) })
        #expect(duplicate.message.contains("duplicate"))
        #expect(duplicate.column == 16)

        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(unifiedError { try parseSettings(#"{"x": "# + deep + "}") }?.message.contains("nested") == true)
    }

    @Test(
        "a value of the wrong type or range is refused with its JSON path and position",
        arguments: [
            (#"{"timeouts": {"enabled": "yes"}}"#, Mistake("timeouts.enabled", "true or false, got a string")),
            (#"{"timeouts": {"default": -1}}"#, Mistake("timeouts.default", "≥ 0")),
            (#"{"timeouts": {"default": 1e400}}"#, Mistake("timeouts.default", "finite")),
            (#"{"timeouts": {"default": -1e300}}"#, Mistake("timeouts.default", "≥ 0")),
            (#"{"timeouts": {"default": "forever"}}"#, Mistake("timeouts.default", "\"never\"")),
            (#"{"timeouts": []}"#, Mistake("timeouts", "an object, got an array")),
            (#"{"memory": {"processBudgetBytes": 0}}"#, Mistake("memory.processBudgetBytes", "positive integer")),
            (#"{"memory": {"maxEntriesPerSession": 2.5}}"#, Mistake("memory.maxEntriesPerSession", "positive integer")),
            (#"{"memory": {"maxBytesPerSession": "64MiB"}}"#, Mistake("memory.maxBytesPerSession", "got a string")),
            (#"{"memroy": {}}"#, Mistake("memroy", "unknown setting")),
            (#"{"domainMap": "mine"}"#, Mistake("domainMap", "\"banking\" or \"empty\"")),
            (
                #"{"domains": {"balances": {"policy": "sometimes"}}}"#,
                Mistake("domains.balances.policy", "got \"sometimes\"")
            ),
            (#"{"domains": {"balances": {"policy": true}}}"#, Mistake("domains.balances.policy", "got a boolean")),
            (#"{"domains": {"balances": {"policy": "custom"}}}"#, Mistake("domains.balances.policy", "seconds")),
            (
                #"{"domains": {"balances": {"policy": "never", "seconds": 3}}}"#,
                Mistake("domains.balances.seconds", "custom")
            ),
            (#"{"domains": {"balances": {"seconds": 3}}}"#, Mistake("domains.balances.seconds", "custom")),
            (
                #"{"domains": {"balances": {"policy": 5, "seconds": 3}}}"#,
                Mistake("domains.balances.seconds", "numeric")
            ),
            (#"{"domains": {"balances": {"policy": -5}}}"#, Mistake("domains.balances.policy", "≥ 0")),
            (#"{"domains": {"balances": {"polcy": "never"}}}"#, Mistake("domains.balances.polcy", "unknown setting")),
            (#"{"domains": {"balances": {"members": "add"}}}"#, Mistake("domains.balances.members", "\"extend\"")),
            (#"{"domains": {"balances": {"typenames": "Card"}}}"#, Mistake("domains.balances.typenames", "an array")),
            (
                #"{"domains": {"balances": {"typenames": [1]}}}"#,
                Mistake("domains.balances.typenames[0]", "got a number")
            ),
            (#"{"domains": []}"#, Mistake("domains", "an object")),
            ("[]", Mistake("(top level)", "an object, got an array")),
        ]
    )
    func wrongValue(text: String, mistake: Mistake) throws {
        let error = try #require(unifiedError { try parseSettings(bankingDocument(text), source: "test.json") })

        #expect(error.code == .invalidSettings)
        #expect(error.place == mistake.place)
        #expect(error.message.contains(mistake.expected), "\(error.message)")
        #expect(error.message.hasSuffix("(in test.json)"))
        #expect(error.line == 1)
        #expect(error.column != nil)
    }

    @Test("a policy for a domain nobody defined is refused as an unknown domain")
    func unknownDomain() throws {
        let text = """
            {
              "domains": {
                "balance": { "policy": "never" }
              }
            }
            """
        let error = try #require(unifiedError { try parseSettings(text) })

        #expect(error.code == .unknownDomain)
        #expect(error.place == "domains.balance")
        #expect(error.line == 3)
        #expect(error.column == 16)
    }

    @Test(
        "a broken domain member is refused as an invalid domain, naming the element",
        arguments: [
            (
                #"{"domains": {"balances": {"schemaCoordinates": ["Account.balance", "Account"]}}}"#,
                "domains.balances.schemaCoordinates[1]"
            ),
            (
                #"{"domains": {"balances": {"schemaCoordinates": ["Account.balance.x"]}}}"#,
                "domains.balances.schemaCoordinates[0]"
            ),
            (#"{"domains": {"balances": {"restKeyPrefixes": [""]}}}"#, "domains.balances.restKeyPrefixes[0]"),
            (
                #"{"domains": {"balances": {"graphQLOperations": ["Get Balance"]}}}"#,
                "domains.balances.graphQLOperations[0]"
            ),
            (#"{"domains": {"balances": {"restPathPatterns": ["api/x"]}}}"#, "domains.balances.restPathPatterns[0]"),
            (#"{"domains": {"bad-name": {"typenames": ["X"]}}}"#, #"domains["bad-name"]"#),
            (#"{"domains": {"balances": {"members": "replace", "restDomains": []}}}"#, "domains.balances"),
        ]
    )
    func brokenMember(text: String, place: String) throws {
        let error = try #require(unifiedError { try parseSettings(bankingDocument(text)) })

        #expect(error.code == .invalidDomain)
        #expect(error.place == place)
        #expect(error.line != nil)
    }

    @Test("replacing a domain with nothing listed leaves it tagged with its name only")
    func replaceWithNothing() throws {
        let settings = try parseSettings(bankingDocument(#"{"domains": {"balances": {"members": "replace"}}}"#))

        let balances = try #require(settings.domainMap[.balances])
        #expect(balances.restDomains == ["balances"])
        #expect(balances.schemaCoordinates.isEmpty)
        #expect(settings.domainMap.domainNames(forOperation: "AccountBalance").isEmpty)
    }

    @Test("a new domain that lists nothing is an unknown domain, even when asked to replace")
    func newDomainWithoutMembers() throws {
        let error = try #require(unifiedError { try parseSettings(#"{"domains": {"x": {"members": "replace"}}}"#) })

        #expect(error.code == .unknownDomain)
        #expect(error.place == "domains.x")
    }

    @Test("columns count characters, not bytes")
    func unicodeColumns() throws {
        let error = try #require(unifiedError { try parseSettings(#"{"//é": "ü", "memory": 5}"#) })

        #expect(error.place == "memory")
        #expect(error.column == 24)
    }

    @Test("written settings read back to equal settings, environment overrides included")
    func roundTrip() throws {
        var original = try parseSettings(Self.documentedExample)
            .overriding(with: ["UCACHE_DEFAULT_TIMEOUT": "42.5", "UCACHE_DOMAIN_OFFERS": "never"])
        original.memory.maxBytesPerSession = 1024

        let data = original.jsonData()
        let reread = try CacheSettings(json: data)

        #expect(reread == original)
        #expect(reread.jsonData() == data)
        #expect(String(decoding: data, as: UTF8.self).contains("\"domainMap\" : \"empty\""))
        #expect(try CacheSettings(json: CacheSettings().jsonData()) == CacheSettings())
        #expect(try CacheSettings(json: CacheSettings(defaultTimeout: .never).jsonData()).defaultTimeout == .never)
    }
}

/// Where a syntax error is expected.
struct Position: Sendable, CustomTestStringConvertible {
    var line: Int
    var column: Int

    init(_ line: Int, _ column: Int) {
        self.line = line
        self.column = column
    }

    var testDescription: String { "\(line):\(column)" }
}

/// The place a value error is expected at, and a part of its message.
struct Mistake: Sendable, CustomTestStringConvertible {
    var place: String
    var expected: String

    init(_ place: String, _ expected: String) {
        self.place = place
        self.expected = expected
    }

    var testDescription: String { "\(place): \(expected)" }
}

extension SettingsFileTests {
    @Test("the sessions section sets the idle timeout and the bound on live sessions")
    func sessionsSection() throws {
        let settings = try parseSettings(#"{ "sessions": { "idleTimeoutSeconds": 90.5, "maxSessions": 7 } }"#)
        #expect(settings.sessions == CacheSettings.SessionLimits(idleTimeoutSeconds: 90.5, maxSessions: 7))
        #expect(settings.sessions.idleTimeout == .milliseconds(90_500))
    }

    static let badSessionDocuments: [(json: String, place: String)] = [
        (#"{ "sessions": { "idleTimeoutSeconds": 0 } }"#, "sessions.idleTimeoutSeconds"),
        (#"{ "sessions": { "idleTimeoutSeconds": "soon" } }"#, "sessions.idleTimeoutSeconds"),
        (#"{ "sessions": { "idleTimeoutSeconds": 1e300 } }"#, "sessions.idleTimeoutSeconds"),
        (#"{ "sessions": { "idleTimeoutSeconds": 1e400 } }"#, "sessions.idleTimeoutSeconds"),
        (#"{ "sessions": { "maxSessions": 1e300 } }"#, "sessions.maxSessions"),
        (#"{ "sessions": { "maxSessions": 0 } }"#, "sessions.maxSessions"),
        (#"{ "sessions": { "maxSessions": 2.5 } }"#, "sessions.maxSessions"),
        (#"{ "sessions": { "bound": 3 } }"#, "sessions.bound"),
    ]

    @Test("a sessions value out of range is refused, naming its place", arguments: badSessionDocuments)
    func badSessions(document: (json: String, place: String)) throws {
        let (json, place) = document
        let error = try #require(unifiedError { try parseSettings(json) })
        #expect(error.code == .invalidSettings)
        #expect(error.place?.hasPrefix(place) == true)
    }
}
