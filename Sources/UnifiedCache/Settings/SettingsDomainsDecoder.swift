import CacheCore

/// Reads the `domains` section of a settings file: per-domain policies and additions to (or replacements of) the
/// domain map.
struct SettingsDomainsDecoder {
    let reader: SettingsReader

    private static let memberKeys = [
        "restDomains", "restKeyPrefixes", "restPathPatterns", "graphQLOperations", "typenames", "schemaCoordinates",
        "valueTags",
    ]
    private static let domainKeys =
        ["summary", "policy", "seconds", "members"] + memberKeys + CacheSettings.resilienceKeys

    /// What one entry under `domains` says.
    private struct Entry {
        var policy: DomainCachePolicy?
        var replacesMembers = false
        var summary = ""
        var members: [String: [String]] = [:]
        var resilience: CacheResilience?
    }

    func decode(_ node: SettingsJSON, into settings: inout CacheSettings) throws(UnifiedCacheError) {
        let path = SettingsPath.root.appending("domains")
        for (key, value) in try reader.members(of: node, at: path, allowed: [], allowingAnyKey: true) {
            let domainPath = path.appending(key)
            let name: CacheDomain.Name
            do {
                name = try CacheDomain.Name(key)
            } catch {
                throw reader.error(error.message, at: domainPath, value, code: .invalidDomain)
            }
            let entry = try decodeEntry(value, at: domainPath)
            try apply(entry, named: name, at: domainPath, node: value, to: &settings.domainMap)
            if let policy = entry.policy {
                settings.domainPolicies[name] = policy
            }
            if let resilience = entry.resilience {
                do {
                    settings.domainResilience[name] = try resilience.validated()
                } catch {
                    throw reader.error(error.message, at: domainPath, value)
                }
            }
        }
    }

    private func decodeEntry(_ node: SettingsJSON, at path: SettingsPath) throws(UnifiedCacheError) -> Entry {
        var entry = Entry()
        var policyNode: SettingsJSON?
        var secondsNode: SettingsJSON?
        for (key, value) in try reader.members(of: node, at: path, allowed: Self.domainKeys) {
            let valuePath = path.appending(key)
            switch key {
            case "summary": entry.summary = try reader.string(value, at: valuePath)
            case "policy": policyNode = value
            case "seconds": secondsNode = value
            case "members": entry.replacesMembers = try decodeMembersMode(value, at: valuePath)
            case "failSafeMaxDuration", "failSafeThrottleDuration", "softTimeout", "hardTimeout":
                let duration = OutsideValue.clampedDuration(seconds: try reader.seconds(value, at: valuePath))
                var options = entry.resilience ?? CacheResilience()
                switch key {
                case "failSafeMaxDuration": options.failSafeMaxDuration = duration
                case "failSafeThrottleDuration": options.failSafeThrottleDuration = duration
                case "softTimeout": options.softTimeout = duration
                default: options.hardTimeout = duration
                }
                entry.resilience = options
            case "eagerRefreshThreshold":
                guard case .number(let lexeme) = value.value, let share = Double(lexeme) else {
                    throw reader.mismatch("a share between 0 and 1 (e.g. 0.9)", value, at: valuePath)
                }
                var options = entry.resilience ?? CacheResilience()
                options.eagerRefreshThreshold = share
                entry.resilience = options
            default:
                entry.members[key] = try reader.strings(
                    value,
                    at: valuePath,
                    problemCode: .invalidDomain,
                    problem: Self.problem(for: key)
                )
            }
        }
        entry.policy = try decodePolicy(policyNode, seconds: secondsNode, at: path)
        return entry
    }

    private func decodeMembersMode(_ node: SettingsJSON, at path: SettingsPath) throws(UnifiedCacheError) -> Bool {
        switch try reader.string(node, at: path) {
        case "extend": return false
        case "replace": return true
        case let other:
            throw reader.error("expected \"extend\" or \"replace\", got \(NameRules.quoted(other))", at: path, node)
        }
    }

    /// `policy` as a number (custom seconds) or one of the four words; `seconds` only with `"custom"`.
    private func decodePolicy(
        _ node: SettingsJSON?,
        seconds secondsNode: SettingsJSON?,
        at path: SettingsPath
    ) throws(UnifiedCacheError) -> DomainCachePolicy? {
        let policyPath = path.appending("policy")
        let secondsPath = path.appending("seconds")
        guard let node else {
            if let secondsNode {
                throw reader.error("seconds needs \"policy\": \"custom\"", at: secondsPath, secondsNode)
            }
            return nil
        }
        if case .number = node.value {
            if let secondsNode {
                throw reader.error("seconds is already given by the numeric policy", at: secondsPath, secondsNode)
            }
            return .custom(seconds: try reader.seconds(node, at: policyPath))
        }
        guard case .string(let word) = node.value else {
            throw reader.mismatch("never, always, default, custom or a number of seconds", node, at: policyPath)
        }
        if word == "custom" {
            guard let secondsNode else {
                throw reader.error("policy custom needs \"seconds\": <number>", at: policyPath, node)
            }
            return .custom(seconds: try reader.seconds(secondsNode, at: secondsPath))
        }
        if let secondsNode {
            throw reader.error("seconds is only used with \"policy\": \"custom\"", at: secondsPath, secondsNode)
        }
        switch word {
        case "never": return .never
        case "always": return .always
        case "default": return .default
        default:
            throw reader.error(
                "expected never, always, default, custom or a number of seconds, got \(NameRules.quoted(word))",
                at: policyPath,
                node
            )
        }
    }

    /// Extends, replaces or defines the domain `name` in `map`.
    private func apply(
        _ entry: Entry,
        named name: CacheDomain.Name,
        at path: SettingsPath,
        node: SettingsJSON,
        to map: inout CacheDomainMap
    ) throws(UnifiedCacheError) {
        let existing = map[name]
        if entry.members.isEmpty {
            guard existing != nil else {
                throw reader.error(
                    "no domain is called \(name); to define one, list at least one of "
                        + Self.memberKeys.joined(separator: ", "),
                    at: path,
                    node,
                    code: .unknownDomain
                )
            }
            guard entry.replacesMembers else {
                return  // a policy (or summary) for a known domain
            }
        }
        func members(_ key: String) -> Set<String> {
            Set(entry.members[key] ?? [])
        }
        let defined = CacheDomain(
            unchecked: name,
            summary: entry.summary.isEmpty ? (existing?.summary ?? "") : entry.summary,
            restDomains: entry.members["restDomains"].map(Set.init)
                ?? (existing == nil || entry.replacesMembers ? [name.rawValue] : []),
            restKeyPrefixes: members("restKeyPrefixes"),
            restPathPatterns: members("restPathPatterns"),
            graphQLOperations: members("graphQLOperations"),
            typenames: members("typenames"),
            schemaCoordinates: Set(members("schemaCoordinates").map { SchemaCoordinate(unchecked: $0) }),
            valueTags: members("valueTags")
        )
        let result = entry.replacesMembers || existing == nil ? defined : existing.map { $0.merging(defined) }
        guard let result, !result.isEmpty else {
            throw reader.error("domain \(name) would select nothing", at: path, node, code: .invalidDomain)
        }
        map.replace(result)
    }

    /// The check for one element of a member list (coordinates, names, prefixes, patterns).
    private static func problem(for key: String) -> (String) -> String? {
        switch key {
        case "restDomains": return CacheDomain.problem(restDomain:)
        case "valueTags": return CacheDomain.problem(valueTag:)
        case "restKeyPrefixes": return CacheDomain.problem(restKeyPrefix:)
        case "restPathPatterns": return CacheDomain.problem(restPathPattern:)
        case "graphQLOperations": return CacheDomain.problem(operationName:)
        case "typenames": return CacheDomain.problem(typename:)
        default: return SchemaCoordinate.problem(_:)
        }
    }
}
