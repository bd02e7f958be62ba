import CacheCore
import Foundation
import Testing
import UnifiedCache

@Suite("Settings environment")
struct SettingsEnvironmentTests {
    @Test("each documented variable overrides its setting")
    func overrides() throws {
        let settings = try CacheSettings.banking.overriding(with: [
            "UCACHE_DEFAULT_TIMEOUT": "120",
            "UCACHE_TIMEOUTS_ENABLED": "off",
            "UCACHE_MEMORY_LIMIT_BYTES": "1048576",
            "UCACHE_SESSION_MAX_ENTRIES": "500",
            "UCACHE_SESSION_MAX_BYTES": "65536",
            "UCACHE_SESSION_IDLE_TIMEOUT": "600",
            "UCACHE_MAX_SESSIONS": "2000",
            "UCACHE_CLEAR_ON_SETTINGS_CHANGE": "YES",
            "UCACHE_DOMAIN_BALANCES": "15",
            "UCACHE_DOMAIN_USER_PROFILE": "never",
            "UCACHE_DOMAIN_offers": "Always",
        ])

        #expect(settings.defaultTimeout == .seconds(120))
        #expect(!settings.isTimeoutEnabled)
        #expect(
            settings.memory
                == CacheSettings.MemoryLimits(
                    processBudgetBytes: 1_048_576, maxEntriesPerSession: 500, maxBytesPerSession: 65_536))
        #expect(settings.sessions == CacheSettings.SessionLimits(idleTimeoutSeconds: 600, maxSessions: 2_000))
        #expect(settings.clearsAffectedDomainsOnChange)
        #expect(settings.policy(for: .balances) == .custom(seconds: 15))
        #expect(settings.policy(for: .userProfile) == .never)
        #expect(settings.policy(for: .offers) == .always)
        #expect(settings.policy(for: .payees) == .default)
    }

    @Test("a domain variable finds its domain with or without underscores, in any case")
    func domainNameForms() throws {
        for variable in [
            "UCACHE_DOMAIN_TRANSACTION_HISTORY", "UCACHE_DOMAIN_TRANSACTIONHISTORY", "UCACHE_DOMAIN_transactionHistory",
        ] {
            let settings = try CacheSettings.banking.overriding(with: [variable: "never"])
            #expect(settings.policy(for: .transactionHistory) == .never, "\(variable)")
        }
    }

    @Test("empty values count as unset and other UCACHE_ variables are left alone")
    func emptyAndForeign() throws {
        let environment = [
            "UCACHE_DEFAULT_TIMEOUT": "", "UCACHE_DOMAIN_BALANCES": "  ", "UCACHE_FIXTURE_URL": "http://127.0.0.1:1",
            "UCACHE_BENCH_URL": "x", "PATH": "/usr/bin",
        ]

        #expect(try CacheSettings().overriding(with: environment) == CacheSettings())
    }

    @Test(
        "a value that does not parse is refused, naming the variable",
        arguments: [
            ("UCACHE_DEFAULT_TIMEOUT", "five minutes"), ("UCACHE_DEFAULT_TIMEOUT", "-1"),
            ("UCACHE_TIMEOUTS_ENABLED", "maybe"), ("UCACHE_MEMORY_LIMIT_BYTES", "1.5e9"),
            ("UCACHE_MEMORY_LIMIT_BYTES", "0"), ("UCACHE_SESSION_MAX_ENTRIES", "-3"),
            ("UCACHE_SESSION_MAX_BYTES", "64MiB"), ("UCACHE_CLEAR_ON_SETTINGS_CHANGE", "2"),
            ("UCACHE_DOMAIN_BALANCES", "sometimes"), ("UCACHE_DOMAIN_BALANCES", "-30"),
            ("UCACHE_SESSION_IDLE_TIMEOUT", "0"), ("UCACHE_SESSION_IDLE_TIMEOUT", "half an hour"),
            ("UCACHE_MAX_SESSIONS", "0"), ("UCACHE_MAX_SESSIONS", "1e5"),
        ]
    )
    func badValue(variable: String, value: String) throws {
        let error = try #require(unifiedError { try CacheSettings.banking.overriding(with: [variable: value]) })

        #expect(error.code == .invalidSettings)
        #expect(error.place == variable)
        #expect(error.description.contains(variable))
    }

    @Test("a domain variable naming no domain is refused as an unknown domain")
    func unknownDomain() throws {
        let error = try #require(
            unifiedError { try CacheSettings.banking.overriding(with: ["UCACHE_DOMAIN_BALANCE": "never"]) })

        #expect(error.code == .unknownDomain)
        #expect(error.place == "UCACHE_DOMAIN_BALANCE")
        #expect(error.message.contains("balances"))
    }

    @Test("a domain variable matching two domains is refused as ambiguous")
    func ambiguousDomain() throws {
        let map = try CacheDomainMap([
            try CacheDomain(name: "fooBar", typenames: ["A"]), try CacheDomain(name: "foo_bar", typenames: ["B"]),
        ])
        let settings = CacheSettings(domainMap: map)

        let error = try #require(unifiedError { try settings.overriding(with: ["UCACHE_DOMAIN_FOO_BAR": "never"]) })

        #expect(error.code == .unknownDomain)
        #expect(error.message.contains("ambiguous"))
    }

    @Test("the environment beats the file named by UCACHE_SETTINGS")
    func environmentBeatsFile() throws {
        let file = try TemporaryFile(
            #"{"timeouts": {"default": 60}, "domainMap": "banking", "#
                + #""domains": {"balances": {"policy": 30}, "offers": {"policy": "never"}}}"#
        )
        defer { file.remove() }

        let settings = try CacheSettings.load(environment: [
            "UCACHE_SETTINGS": file.path, "UCACHE_DEFAULT_TIMEOUT": "never", "UCACHE_DOMAIN_BALANCES": "default",
        ])

        #expect(settings.defaultTimeout == .never)
        #expect(settings.policy(for: .balances) == .default)
        #expect(settings.policy(for: .offers) == .never)
    }

    @Test("without UCACHE_SETTINGS the defaults and the overrides apply")
    func noFile() throws {
        #expect(try CacheSettings.load(environment: [:]) == CacheSettings())
        #expect(try CacheSettings.load(environment: ["UCACHE_SETTINGS": ""]) == CacheSettings())
        #expect(try CacheSettings.load(environment: ["UCACHE_TIMEOUTS_ENABLED": "0"]).isTimeoutEnabled == false)
    }

    @Test("a missing file is refused as unreadable, with the cause kept")
    func missingFile() throws {
        let path = "/nonexistent/ucache-\(UUID().uuidString).json"

        let error = try #require(unifiedError { try CacheSettings.load(environment: ["UCACHE_SETTINGS": path]) })

        #expect(error.code == .settingsFileUnreadable)
        #expect(error.place == path)
        #expect(error.underlying != nil)
    }

    @Test("a file larger than the limit is refused without being read whole")
    func oversizedFile() throws {
        let file = try TemporaryFile(
            "{\"//\": \"" + String(repeating: "x", count: CacheSettings.maximumFileBytes) + "\"}")
        defer { file.remove() }

        let error = try #require(unifiedError { try CacheSettings.load(file: file.path, environment: [:]) })

        #expect(error.code == .settingsFileUnreadable)
        #expect(error.message.contains("larger"))
    }

    @Test("errors of a file name the file")
    func fileErrorsNameTheFile() throws {
        let file = try TemporaryFile(#"{"timeouts": {"enabled": 1}}"#)
        defer { file.remove() }

        let error = try #require(unifiedError { try CacheSettings.load(file: file.path, environment: [:]) })

        #expect(error.place == "timeouts.enabled")
        #expect(error.message.contains(file.path))
    }
}
