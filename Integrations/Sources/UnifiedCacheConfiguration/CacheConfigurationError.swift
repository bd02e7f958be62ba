import Foundation
import RedisReplication
import UnifiedCache

/// Why the configuration read from a `ConfigReader` cannot make a hub: the key at fault and what was expected,
/// never the value (a URL may hold a Redis password, a secret is a key).
public struct CacheConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A stable identifier of the failure: a struct over a private enum, so codes can be added without breaking a
    /// caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case missingValue, invalidValue, inconsistent, unreadableFile
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// A required key has no value.
        public static let missingValue = Code(.missingValue)
        /// A value does not parse or is out of range.
        public static let invalidValue = Code(.invalidValue)
        /// A value parses but cannot work with the rest (a Redis URL without the fleet secret, TLS settings for a
        /// plaintext URL).
        public static let inconsistent = Code(.inconsistent)
        /// The settings file a key names could not be read.
        public static let unreadableFile = Code(.unreadableFile)

        /// The code's stable name (`invalidValue`).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The key at fault, relative to the reader the app passed (`redis.url`; under a reader scoped to `ucache`
    /// over environment variables, `UCACHE_REDIS_URL`).
    public let key: String
    /// What was expected, for a log; never the value.
    public let message: String

    public init(code: Code, key: String, message: String) {
        self.code = code
        self.key = key
        self.message = message
    }

    public var description: String { "CacheConfigurationError(\(code)) at \(key): \(message)" }
}

extension CacheConfigurationError {
    /// A library reader's error, told by the key of the variable it names (`place`) and without any value the
    /// configuration holds as a secret.
    init(library error: UnifiedCacheError, environment: [String: String], domainKeys: [String: String] = [:]) {
        let key = error.place.flatMap { domainKeys[$0] ?? CacheConfigurationKey(environmentVariable: $0)?.rawValue }
        let code: Code = error.code == .settingsFileUnreadable ? .unreadableFile : .invalidValue
        var text = error.message
        for (variable, domainKey) in domainKeys { text = text.replacingOccurrences(of: variable, with: domainKey) }
        self.init(code: code, key: key ?? CacheConfigurationKey.settingsFile.rawValue, text: text, environment)
    }

    /// A Redis configuration error, told by the key at fault: the variable its message names (`must be 0 or 1`),
    /// the TLS key that is set (TLS settings for a plaintext URL), else the URL.
    init(redis error: RedisReplicationError, environment: [String: String]) {
        let tlsKeys: [CacheConfigurationKey] = [
            .redisTLSCAFile, .redisTLSCADirectory, .redisTLSCertificateFile, .redisTLSKeyFile, .redisTLSServerName,
        ]
        let key: CacheConfigurationKey
        let code: Code
        if error.message.contains("UCACHE_REDIS_TLS_*") {
            key = tlsKeys.first { environment[$0.environmentVariable] != nil } ?? .redisTLSCAFile
            code = .inconsistent
        } else if let named = [CacheConfigurationKey.redisAllowNoAuth, .redisCluster].first(where: {
            error.message.contains($0.environmentVariable + " must be")
        }) {
            key = named
            code = .invalidValue
        } else if error.code == .tlsConfigurationInvalid {
            key = tlsKeys.first { error.message.contains($0.environmentVariable) } ?? .redisTLSCAFile
            code = .invalidValue
        } else {
            key = .redisURL
            code = .invalidValue
        }
        self.init(code: code, key: key.rawValue, text: error.message, environment)
    }

    /// An error whose message is the library's, with each variable named by its key and each secret value (the
    /// Redis URL, the secrets) taken out should the message ever hold one.
    private init(code: Code, key: String, text: String, _ environment: [String: String]) {
        var message = text.replacingOccurrences(of: "UCACHE_REDIS_TLS_*", with: "redis.tls.*")
        let longestFirst = CacheConfigurationKey.allCases.sorted {
            $0.environmentVariable.count > $1.environmentVariable.count
        }
        for known in longestFirst {
            message = message.replacingOccurrences(of: known.environmentVariable, with: known.rawValue)
        }
        for known in CacheConfigurationKey.allCases where known.isSecret {
            if let value = environment[known.environmentVariable], !value.isEmpty, message.contains(value) {
                message = "the value of \(known.rawValue) is not valid (not repeated: it is a secret)"
            }
        }
        self.init(code: code, key: key, message: message)
    }
}

extension CacheConfigurationKey {
    /// The key of one of the library's environment variables.
    init?(environmentVariable: String) {
        guard let key = Self.allCases.first(where: { $0.environmentVariable == environmentVariable }) else {
            return nil
        }
        self = key
    }
}
