import CacheCore

extension CacheSettings {
    /// Reads a settings file.
    ///
    /// Every member is optional; what is left out keeps its default. Members whose name starts with `//` are
    /// comments. An example with every setting:
    /// ```json
    /// {
    ///   "//": "UnifiedCache settings; every member is optional",
    ///   "timeouts": { "enabled": true, "default": 300 },
    ///   "memory": {
    ///     "processBudgetBytes": 536870912,
    ///     "maxEntriesPerSession": 10000,
    ///     "maxBytesPerSession": 67108864
    ///   },
    ///   "sessions": { "idleTimeoutSeconds": 1800, "maxSessions": 100000 },
    ///   "clearAffectedDomainsOnChange": true,
    ///   "domainMap": "banking",
    ///   "domains": {
    ///     "balances": { "policy": 30 },
    ///     "payees": { "policy": "custom", "seconds": 600 },
    ///     "userProfile": { "policy": "always" },
    ///     "notifications": { "policy": "never" },
    ///     "cardsExperience": { "graphQLOperations": ["CardList"] },
    ///     "statements": { "members": "replace", "restKeyPrefixes": ["statementsV2."] },
    ///     "loyalty": {
    ///       "summary": "Loyalty points of each account.",
    ///       "policy": "default",
    ///       "restKeyPrefixes": ["loyalty."],
    ///       "restPathPatterns": ["/api/loyalty/*"],
    ///       "graphQLOperations": ["LoyaltyPoints"],
    ///       "typenames": ["LoyaltyAccount"],
    ///       "schemaCoordinates": ["Account.points"]
    ///     }
    ///   }
    /// }
    /// ```
    /// - `timeouts.enabled` is ``isTimeoutEnabled``; `timeouts.default` is ``defaultTimeout`` in seconds, or
    ///   `"never"`.
    /// - `memory` holds ``MemoryLimits``, positive integers.
    /// - `sessions` holds ``SessionLimits``: the idle timeout in seconds (> 0) and the maximum of live sessions.
    /// - `clearAffectedDomainsOnChange` is ``clearsAffectedDomainsOnChange``.
    /// - `domainMap` is the map the `domains` build on: `"empty"` (the default: only the domains of the file) or
    ///   `"banking"` (the fixture bank's preset, ``CacheDomainMap/banking``, which the example's `balances`,
    ///   `payees`, … extend).
    /// - under `domains`, each member is a domain name with its `policy` — `"never"` (do not cache), `"always"`
    ///   (cache until cleared), `"default"`, `"custom"` with `seconds`, or simply a number of seconds — and members
    ///   (`restDomains`, `restKeyPrefixes`, `restPathPatterns`, `graphQLOperations`, `typenames`,
    ///   `schemaCoordinates`) that are added to the domain of that name (`"members": "extend"`, the default) or
    ///   take the place of its members (`"members": "replace"`). A name the base map does not know defines a new
    ///   domain and must list at least one member. A new or replaced domain's `restDomains` default to its name
    ///   (write `"restDomains": []` to drop that tag).
    ///
    /// - Parameters:
    ///   - json: the file's bytes (UTF-8).
    ///   - source: what to call the document in messages, usually its path.
    /// - Throws: `.invalidSettings` for a syntax error (with line and column) or a value of the wrong type or
    ///   range (with its JSON path, e.g. `domains.balances.policy`, and position); `.unknownDomain` for a policy of
    ///   a domain that is neither in the base map nor defined; `.invalidDomain` for a broken member.
    public init(json: some Collection<UInt8>, source: String? = nil) throws(UnifiedCacheError) {
        let reader = SettingsReader(source: source)
        let document: SettingsJSON
        do {
            document = try SettingsJSON.parse(Array(json))
        } catch {
            throw UnifiedCacheError(
                code: error.code,
                message: reader.located(error.message),
                line: error.line,
                column: error.column
            )
        }
        self = try SettingsDocumentDecoder(reader: reader).decode(document)
        try validate()
    }
}

/// Turns a parsed document into settings, one section at a time.
private struct SettingsDocumentDecoder {
    let reader: SettingsReader

    private static let topLevelKeys = [
        "timeouts", "memory", "sessions", "clearAffectedDomainsOnChange", "domainMap", "domains",
    ]

    func decode(_ document: SettingsJSON) throws(UnifiedCacheError) -> CacheSettings {
        var settings = CacheSettings()
        var domainsNode: SettingsJSON?
        for (key, node) in try reader.members(of: document, at: .root, allowed: Self.topLevelKeys) {
            let path = SettingsPath.root.appending(key)
            switch key {
            case "timeouts": try decodeTimeouts(node, at: path, into: &settings)
            case "memory": settings.memory = try decodeMemory(node, at: path)
            case "sessions": settings.sessions = try decodeSessions(node, at: path)
            case "clearAffectedDomainsOnChange":
                settings.clearsAffectedDomainsOnChange = try reader.bool(node, at: path)
            case "domainMap": settings.domainMap = try decodeBaseMap(node, at: path)
            default: domainsNode = node
            }
        }
        if let domainsNode {
            // After `domainMap`, whatever the member order in the file.
            try SettingsDomainsDecoder(reader: reader).decode(domainsNode, into: &settings)
        }
        return settings
    }

    private func decodeTimeouts(
        _ node: SettingsJSON,
        at path: SettingsPath,
        into settings: inout CacheSettings
    ) throws(UnifiedCacheError) {
        for (key, value) in try reader.members(of: node, at: path, allowed: ["enabled", "default"]) {
            let valuePath = path.appending(key)
            if key == "enabled" {
                settings.isTimeoutEnabled = try reader.bool(value, at: valuePath)
            } else if case .string(let text) = value.value {
                guard text == "never" else {
                    throw reader.error(
                        "expected a number of seconds or \"never\", got \(NameRules.quoted(text))",
                        at: valuePath,
                        value
                    )
                }
                settings.defaultTimeout = .never
            } else {
                settings.defaultTimeout = .seconds(try reader.seconds(value, at: valuePath))
            }
        }
    }

    private func decodeMemory(
        _ node: SettingsJSON,
        at path: SettingsPath
    ) throws(UnifiedCacheError) -> CacheSettings.MemoryLimits {
        var memory = CacheSettings.MemoryLimits()
        let keys = ["processBudgetBytes", "maxEntriesPerSession", "maxBytesPerSession"]
        for (key, value) in try reader.members(of: node, at: path, allowed: keys) {
            let number = try reader.positiveInteger(value, at: path.appending(key))
            switch key {
            case "processBudgetBytes": memory.processBudgetBytes = number
            case "maxEntriesPerSession": memory.maxEntriesPerSession = number
            default: memory.maxBytesPerSession = number
            }
        }
        return memory
    }

    private func decodeSessions(
        _ node: SettingsJSON,
        at path: SettingsPath
    ) throws(UnifiedCacheError) -> CacheSettings.SessionLimits {
        var sessions = CacheSettings.SessionLimits()
        for (key, value) in try reader.members(of: node, at: path, allowed: ["idleTimeoutSeconds", "maxSessions"]) {
            let valuePath = path.appending(key)
            if key == "maxSessions" {
                sessions.maxSessions = try reader.positiveInteger(value, at: valuePath)
            } else {
                let seconds = try reader.seconds(value, at: valuePath)
                guard seconds > 0 else {
                    throw reader.error("expected a number of seconds > 0, got \(seconds)", at: valuePath, value)
                }
                sessions.idleTimeoutSeconds = seconds
            }
        }
        return sessions
    }

    private func decodeBaseMap(_ node: SettingsJSON, at path: SettingsPath) throws(UnifiedCacheError) -> CacheDomainMap
    {
        switch try reader.string(node, at: path) {
        case "empty": return CacheDomainMap()
        case "banking": return .banking
        case let other:
            throw reader.error("expected \"banking\" or \"empty\", got \(NameRules.quoted(other))", at: path, node)
        }
    }
}
