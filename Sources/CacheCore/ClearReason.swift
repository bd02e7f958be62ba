/// Why a clear happened; carried into the `ClearReport` and the `.cleared` event so logs and metrics can tell a
/// logout from a mutation from an operator's action.
public enum ClearReason: Hashable, Sendable {
    case logout
    case sessionExpired
    /// The session id came back with another verified principal: the old session ended before anything was
    /// served.
    case principalChanged
    /// The bound on live sessions was reached and this session was the least recently used.
    case sessionEvicted
    case accountSwitch
    /// The user asked for fresh data (pull-to-refresh in the seeds).
    case userRefresh
    /// A write (POST/PUT/PATCH/DELETE or GraphQL mutation) made cached data wrong.
    case mutation
    /// Cache settings changed at run time (the seeds' scenario 8).
    case settingsChanged
    /// The process memory budget or an operator asked for memory back.
    case memoryPressure
    /// Code cleared without a more specific reason.
    case manual
    /// Anything else, named by the caller.
    case custom(String)
}

extension ClearReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .logout: return "logout"
        case .sessionExpired: return "sessionExpired"
        case .principalChanged: return "principalChanged"
        case .sessionEvicted: return "sessionEvicted"
        case .accountSwitch: return "accountSwitch"
        case .userRefresh: return "userRefresh"
        case .mutation: return "mutation"
        case .settingsChanged: return "settingsChanged"
        case .memoryPressure: return "memoryPressure"
        case .manual: return "manual"
        case .custom(let name): return "custom(\(name))"
        }
    }
}

/// Which entries a clear selected.
public enum ClearTarget: Hashable, Sendable {
    /// The whole scope (its partition was dropped).
    case scope
    case domain(String)
    case account(String)
    case keyPrefix(String)
    case entityKey(String)
    /// Only uplifted entries.
    case uplifted
    /// Entries chosen by a caller's predicate.
    case predicate
}

/// What a clear did, for the caller and for the `.cleared` event.
public struct ClearReport: Hashable, Sendable {
    public var scope: CacheScope
    public var target: ClearTarget
    public var reason: ClearReason
    /// Entries removed.
    public var entries: Int
    /// Bytes released (as charged: payload, key and overhead).
    public var bytes: Int
    /// Uplifted entries that matched but were kept because the clear did not include them.
    public var keptUplifted: Int
    /// Time the clear took for the caller, including freeing the removed entries (except for a whole-scope
    /// clear of a large scope, which frees them on a background queue).
    public var duration: Duration

    public init(
        scope: CacheScope,
        target: ClearTarget,
        reason: ClearReason,
        entries: Int,
        bytes: Int,
        keptUplifted: Int,
        duration: Duration
    ) {
        self.scope = scope
        self.target = target
        self.reason = reason
        self.entries = entries
        self.bytes = bytes
        self.keptUplifted = keptUplifted
        self.duration = duration
    }
}

extension ClearTarget: CustomStringConvertible {
    /// Account identifiers and tokens are printed as fingerprints: an account token is a credential.
    public var description: String {
        switch self {
        case .scope: return "scope"
        case .domain(let domain): return "domain(\(domain))"
        case .account(let account): return "account(#\(CacheScope.fingerprint(of: account)))"
        case .keyPrefix(let prefix): return "keyPrefix(\(prefix))"
        case .entityKey(let entityKey): return "entityKey(\(entityKey))"
        case .uplifted: return "uplifted"
        case .predicate: return "predicate"
        }
    }
}

extension ClearReport: CustomStringConvertible {
    public var description: String {
        "cleared \(target) in \(scope) (\(reason)): \(entries) entries, \(bytes) bytes, kept \(keptUplifted) uplifted, "
            + "\(duration)"
    }
}
