import CacheCore

/// The environment variables UnifiedCache reads. They beat the settings file, so a deployment can change one
/// setting without shipping a new file. An empty value counts as unset (compose files often pass `VAR=`), and
/// other `UCACHE_` variables are left to their owners (fixtures, benchmarks).
public enum SettingsEnvironmentVariable: String, CaseIterable, Sendable {
    /// Path of the JSON settings file; without it the defaults (and the other variables) apply.
    case settingsFile = "UCACHE_SETTINGS"
    /// ``CacheSettings/defaultTimeout``: seconds (`300`, `2.5`) or `never`.
    case defaultTimeout = "UCACHE_DEFAULT_TIMEOUT"
    /// ``CacheSettings/isTimeoutEnabled``: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`.
    case timeoutsEnabled = "UCACHE_TIMEOUTS_ENABLED"
    /// ``CacheSettings/MemoryLimits/processBudgetBytes``: a positive integer.
    case memoryLimitBytes = "UCACHE_MEMORY_LIMIT_BYTES"
    /// ``CacheSettings/MemoryLimits/maxEntriesPerSession``: a positive integer.
    case sessionMaxEntries = "UCACHE_SESSION_MAX_ENTRIES"
    /// ``CacheSettings/MemoryLimits/maxBytesPerSession``: a positive integer.
    case sessionMaxBytes = "UCACHE_SESSION_MAX_BYTES"
    /// ``CacheSettings/SessionLimits/idleTimeoutSeconds``: seconds greater than zero.
    case sessionIdleTimeout = "UCACHE_SESSION_IDLE_TIMEOUT"
    /// ``CacheSettings/SessionLimits/maxSessions``: a positive integer.
    case maxSessions = "UCACHE_MAX_SESSIONS"
    /// ``CacheSettings/clearsAffectedDomainsOnChange``: a boolean as for `UCACHE_TIMEOUTS_ENABLED`.
    case clearOnSettingsChange = "UCACHE_CLEAR_ON_SETTINGS_CHANGE"

    /// `UCACHE_DOMAIN_<NAME>=never|always|default|<seconds>` sets one domain's policy. `<NAME>` is the domain's name
    /// in any letter case, with or without underscores between words: `UCACHE_DOMAIN_TRANSACTION_HISTORY`,
    /// `UCACHE_DOMAIN_TRANSACTIONHISTORY` and `UCACHE_DOMAIN_transactionHistory` all set `transactionHistory`.
    public static let domainPolicyPrefix = "UCACHE_DOMAIN_"
}

extension CacheSettings {
    /// These settings with the environment's overrides applied (see ``SettingsEnvironmentVariable``).
    ///
    /// The environment is a parameter so tests (and embedding servers) decide what it holds; pass
    /// `ProcessInfo.processInfo.environment` for the process's own.
    ///
    /// - Throws: `.invalidSettings` naming the variable when a value does not parse or is out of range;
    ///   `.unknownDomain` when `UCACHE_DOMAIN_<NAME>` names no domain (or several).
    public func overriding(with environment: [String: String]) throws(UnifiedCacheError) -> CacheSettings {
        var settings = self
        let value = { (variable: SettingsEnvironmentVariable) -> String? in
            environment[variable.rawValue].map(\.trimmingSpaces).flatMap { $0.isEmpty ? nil : $0 }
        }
        if let text = value(.defaultTimeout) {
            settings.defaultTimeout = try Self.timeout(text, variable: .defaultTimeout)
        }
        if let text = value(.timeoutsEnabled) {
            settings.isTimeoutEnabled = try Self.bool(text, variable: .timeoutsEnabled)
        }
        if let text = value(.clearOnSettingsChange) {
            settings.clearsAffectedDomainsOnChange = try Self.bool(text, variable: .clearOnSettingsChange)
        }
        if let text = value(.memoryLimitBytes) {
            settings.memory.processBudgetBytes = try Self.positiveInteger(text, variable: .memoryLimitBytes)
        }
        if let text = value(.sessionMaxEntries) {
            settings.memory.maxEntriesPerSession = try Self.positiveInteger(text, variable: .sessionMaxEntries)
        }
        if let text = value(.sessionMaxBytes) {
            settings.memory.maxBytesPerSession = try Self.positiveInteger(text, variable: .sessionMaxBytes)
        }
        if let text = value(.sessionIdleTimeout) {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                throw Self.invalid(.sessionIdleTimeout, "expected a number of seconds > 0", text)
            }
            settings.sessions.idleTimeoutSeconds = seconds
        }
        if let text = value(.maxSessions) {
            settings.sessions.maxSessions = try Self.positiveInteger(text, variable: .maxSessions)
        }
        let domainVariables = environment.keys.filter { $0.hasPrefix(SettingsEnvironmentVariable.domainPolicyPrefix) }
        for variable in domainVariables.sorted() {
            let text = environment[variable, default: ""].trimmingSpaces
            guard !text.isEmpty else {
                continue
            }
            let name = try domainName(forVariable: variable)
            settings.domainPolicies[name] = try DomainCachePolicy(parsing: text, place: variable)
        }
        try settings.validate()
        return settings
    }

    /// The domain a `UCACHE_DOMAIN_<NAME>` variable names.
    private func domainName(forVariable variable: String) throws(UnifiedCacheError) -> CacheDomain.Name {
        let suffix = variable.dropFirst(SettingsEnvironmentVariable.domainPolicyPrefix.count)
        let wanted = String(suffix.uppercased().filter { $0 != "_" })
        let matches = domainMap.names.filter { $0.environmentForm == wanted }
        guard matches.count == 1, let name = matches.first else {
            let problem =
                matches.isEmpty
                ? "names no cache domain; known: \(domainMap.names.map(\.rawValue).joined(separator: ", "))"
                : "is ambiguous between \(matches.map(\.rawValue).joined(separator: " and "))"
            throw UnifiedCacheError(code: .unknownDomain, message: "\(variable) \(problem)", place: variable)
        }
        return name
    }

    private static func timeout(_ text: String, variable: SettingsEnvironmentVariable) throws(UnifiedCacheError)
        -> Timeout
    {
        if text.lowercased() == "never" {
            return .never
        }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw invalid(variable, "expected a finite number of seconds ≥ 0 or never", text)
        }
        return .seconds(seconds)
    }

    private static func bool(_ text: String, variable: SettingsEnvironmentVariable) throws(UnifiedCacheError) -> Bool {
        switch text.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw invalid(variable, "expected true or false (also 1/0, yes/no, on/off)", text)
        }
    }

    private static func positiveInteger(_ text: String, variable: SettingsEnvironmentVariable) throws(UnifiedCacheError)
        -> Int
    {
        guard let value = Int(text), value > 0 else {
            throw invalid(variable, "expected a positive integer", text)
        }
        return value
    }

    private static func invalid(_ variable: SettingsEnvironmentVariable, _ expected: String, _ text: String)
        -> UnifiedCacheError
    {
        UnifiedCacheError(
            code: .invalidSettings,
            message: "\(variable.rawValue): \(expected), got \(NameRules.quoted(text))",
            place: variable.rawValue
        )
    }
}
