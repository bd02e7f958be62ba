import CacheCore
import Foundation

extension CacheSettings {
    /// The settings as a settings file that ``init(json:source:)`` reads back to equal settings: what an operator
    /// endpoint shows as "the settings in force", environment overrides included.
    ///
    /// The domain map is written in full on an `"empty"` base, so the file does not depend on the built-in map of
    /// the version that reads it. Keys are sorted, so equal settings give equal bytes.
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Only strings, numbers, booleans, arrays and objects with string keys: encoding cannot fail.
        return (try? encoder.encode(SettingsFile(self))) ?? Data()
    }
}

/// The file format of ``CacheSettings/init(json:source:)`` as an `Encodable` value.
private struct SettingsFile: Encodable {
    struct Timeouts: Encodable {
        var enabled: Bool
        var defaultTimeout: Timeout

        enum CodingKeys: String, CodingKey {
            case enabled
            case defaultTimeout = "default"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(enabled, forKey: .enabled)
            if case .seconds(let seconds) = defaultTimeout {
                try container.encode(seconds, forKey: .defaultTimeout)
            } else {
                try container.encode("never", forKey: .defaultTimeout)
            }
        }
    }

    struct Domain: Encodable {
        var summary: String?
        var policy: DomainCachePolicy?
        var restDomains: [String]
        var restKeyPrefixes: [String]?
        var restPathPatterns: [String]?
        var graphQLOperations: [String]?
        var typenames: [String]?
        var schemaCoordinates: [SchemaCoordinate]?
        var valueTags: [String]?
        var failSafeMaxDuration: Double?
        var failSafeThrottleDuration: Double?
        var softTimeout: Double?
        var hardTimeout: Double?
        var eagerRefreshThreshold: Double?

        init(_ domain: CacheDomain, policy: DomainCachePolicy, resilience: CacheResilience?) {
            summary = domain.summary.isEmpty ? nil : domain.summary
            self.policy = policy == .default ? nil : policy
            restDomains = domain.restDomains.sorted()
            restKeyPrefixes = Self.nonEmpty(domain.restKeyPrefixes.sorted())
            restPathPatterns = Self.nonEmpty(domain.restPathPatterns.sorted())
            graphQLOperations = Self.nonEmpty(domain.graphQLOperations.sorted())
            typenames = Self.nonEmpty(domain.typenames.sorted())
            schemaCoordinates = Self.nonEmpty(domain.schemaCoordinates.sorted())
            valueTags = Self.nonEmpty(domain.valueTags.sorted())
            if let resilience {
                failSafeMaxDuration = resilience.failSafeMaxDuration.map(Self.seconds)
                if resilience.failSafeThrottleDuration != CacheResilience().failSafeThrottleDuration {
                    failSafeThrottleDuration = Self.seconds(resilience.failSafeThrottleDuration)
                }
                softTimeout = resilience.softTimeout.map(Self.seconds)
                hardTimeout = resilience.hardTimeout.map(Self.seconds)
                eagerRefreshThreshold = resilience.eagerRefreshThreshold
            }
        }

        private static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        private static func nonEmpty<Element>(_ values: [Element]) -> [Element]? {
            values.isEmpty ? nil : values
        }
    }

    var timeouts: Timeouts
    var memory: CacheSettings.MemoryLimits
    var sessions: CacheSettings.SessionLimits
    var clearAffectedDomainsOnChange: Bool
    var domainMap = "empty"
    var domains: [String: Domain]

    init(_ settings: CacheSettings) {
        timeouts = Timeouts(enabled: settings.isTimeoutEnabled, defaultTimeout: settings.defaultTimeout)
        memory = settings.memory
        sessions = settings.sessions
        clearAffectedDomainsOnChange = settings.clearsAffectedDomainsOnChange
        var domains: [String: Domain] = [:]
        for domain in settings.domainMap.domains {
            domains[domain.name.rawValue] = Domain(
                domain, policy: settings.policy(for: domain.name), resilience: settings.domainResilience[domain.name])
        }
        self.domains = domains
    }
}
