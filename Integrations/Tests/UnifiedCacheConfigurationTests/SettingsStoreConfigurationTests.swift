import Configuration
import Foundation
import Testing
import UnifiedCache
import UnifiedCacheConfiguration

@Suite("SettingsStore from swift-configuration applies the same overrides as the environment")
struct SettingsStoreConfigurationTests {
    @Test("in-memory keys set the timeout, the session limits and a domain's policy")
    func inMemoryOverrides() throws {
        let store = try SettingsStore(
            config: memoryReader([
                "ucache.defaultTimeout": "42",
                "ucache.timeoutsEnabled": "off",
                "ucache.sessionIdleTimeout": "90",
                "ucache.maxSessions": "500",
                "ucache.domain.paymentList": "never",
            ]),
            defaults: .banking)
        let settings = store.current
        #expect(settings.defaultTimeout == .seconds(42))
        #expect(settings.isTimeoutEnabled == false)
        #expect(settings.sessions.idleTimeoutSeconds == 90)
        #expect(settings.sessions.maxSessions == 500)
        #expect(settings.domainPolicies[.paymentList] == .never)
    }

    @Test("the environment provider gives what SettingsStore(environment:) gives for the same variables")
    func sameAsEnvironment() throws {
        let variables = [
            "UCACHE_DEFAULT_TIMEOUT": "never",
            "UCACHE_SESSION_MAX_ENTRIES": "77",
            "UCACHE_CLEAR_ON_SETTINGS_CHANGE": "yes",
            "UCACHE_DOMAIN_PAYMENT_LIST": "120",
        ]
        let fromConfig = try SettingsStore(config: environmentReader(variables), defaults: .banking).current
        let fromEnvironment = try SettingsStore(settings: .banking, environment: variables).current
        #expect(fromConfig == fromEnvironment)
        #expect(fromConfig.domainPolicies[.paymentList] == .custom(seconds: 120))
        #expect(fromConfig.memory.maxEntriesPerSession == 77)
    }

    @Test("a settings file named by the settings key is loaded, then the overrides apply")
    func settingsFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ucache-config-\(UUID()).json").path
        let json = #"{"domainMap": "banking", "sessions": {"maxSessions": 30}}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try SettingsStore(
            config: memoryReader(["ucache.settings": path, "ucache.domain.balances": "always"])
        ).current
        #expect(settings.sessions.maxSessions == 30)
        #expect(settings.domainPolicies[.balances] == .always)
    }

    @Test("a malformed value is an invalidValue error naming its key, in the key's own spelling")
    func malformedValue() throws {
        #expect {
            try SettingsStore(config: memoryReader(["ucache.sessionIdleTimeout": "soon"]))
        } throws: { error in
            guard let error = error as? CacheConfigurationError else { return false }
            return error.code == .invalidValue && error.key == "sessionIdleTimeout"
                && !error.message.contains("UCACHE_")
        }
        #expect {
            try SettingsStore(config: memoryReader(["ucache.domain.paymentList": "sometimes"]), defaults: .banking)
        } throws: { error in
            (error as? CacheConfigurationError)?.key == "domain.paymentList"
        }
    }

    @Test("a settings file that cannot be read is unreadableFile naming the settings key")
    func unreadableFile() throws {
        #expect {
            try SettingsStore(config: memoryReader(["ucache.settings": "/nonexistent/ucache-settings.json"]))
        } throws: { error in
            guard let error = error as? CacheConfigurationError else { return false }
            return error.code == .unreadableFile && error.key == "settings"
        }
    }
}
