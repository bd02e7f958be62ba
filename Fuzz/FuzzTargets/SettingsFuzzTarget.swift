import CacheCore
import Foundation
import UnifiedCache

/// A settings file as an operator writes it: the JSON reader and its checks, then what the hub derives from accepted
/// settings (decisions per domain, the idle timeout, the stores' limits); accepted settings encode to a file that reads
/// back to equal settings and encodes to the same bytes.
enum SettingsFuzzTarget {
    static func run(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        guard let settings = try? CacheSettings(json: input) else { return [] }
        for name in settings.domainMap.names + [nil] {
            for requested in [Timeout.seconds(30), .never, .useDefault] {
                let decision = settings.cachingDecision(forDomain: name, requestTimeout: requested)
                if case .cache(.seconds(let seconds)) = decision {
                    violations.expect(seconds.isFinite && seconds >= 0, "a decision to cache for \(seconds) s")
                }
            }
        }
        _ = settings.sessions.idleTimeout
        let memory = settings.memory
        violations.expect(
            (try? MemoryBudget(limit: memory.processBudgetBytes)) != nil, "accepted memory budget refused")
        let store = CacheStore.Configuration(
            maxEntriesPerScope: memory.maxEntriesPerSession, maxBytesPerScope: memory.maxBytesPerSession,
            defaultTimeout: settings.defaultTimeout)
        violations.expect((try? store.validate()) != nil, "accepted per-session limits refused by the store")
        let encoded = settings.jsonData()
        do {
            let again = try CacheSettings(json: encoded)
            violations.expect(again == settings, "the encoded settings read back as other settings")
            violations.expect(again.jsonData() == encoded, "the settings encode differently twice")
        } catch {
            violations.expect(false, "the encoded settings are refused: \(error)")
        }
        return violations.list
    }

    static func seeds() -> [(name: String, bytes: [UInt8])] {
        let files: [(String, String)] = [
            (
                "readme",
                """
                {
                  "timeouts": { "enabled": true, "default": 300 },
                  "memory": { "processBudgetBytes": 536870912, "maxEntriesPerSession": 10000, "maxBytesPerSession": 67108864 },
                  "sessions": { "idleTimeoutSeconds": 1800, "maxSessions": 100000 },
                  "clearAffectedDomainsOnChange": true,
                  "domainMap": "banking",
                  "domains": {
                    "balances": { "policy": 30 },
                    "payees": { "policy": "custom", "seconds": 600 },
                    "userProfile": { "policy": "always" },
                    "notifications": { "policy": "never" },
                    "loyalty": { "restKeyPrefixes": ["loyalty."], "graphQLOperations": ["LoyaltyPoints"],
                                 "schemaCoordinates": ["Account.points"] }
                  }
                }
                """
            ),
            ("empty", "{}"),
            ("timeouts-off", #"{"timeouts":{"enabled":false,"default":"never"}}"#),
            (
                "default-policy",
                #"{"domainMap":"banking","domains":{"cards":{"policy":"default"},"accountSummary":{"policy":0.5}}}"#
            ),
            ("escapes", #"{"domains":{"caf\u00e9":{"policy":1e2,"restKeyPrefixes":["a\"b"]}}}"#),
        ]
        var seeds = files.map { ($0.0, Array($0.1.utf8)) }
        if let encoded = try? CacheSettings(json: Array(files[0].1.utf8)).jsonData() {
            seeds.append(("encoded", Array(encoded)))
        }
        return seeds
    }
}
