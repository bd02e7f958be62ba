import CacheCore

/// The cache's run-time settings: the server-side form of the seeds' Settings.bundle.
///
/// In the app, developers switched timeouts and per-feature caching (`Never`, `Always`, `Custom`, `Default`) in
/// Settings.bundle; on a server the same switches come from a JSON settings file (path in `UCACHE_SETTINGS`) and a
/// few environment variables, and can be reloaded while the process runs (see ``SettingsStore``). Every field has a
/// default, so an empty file (`{}`) — or none at all — gives the documented behaviour. The file format is described
/// at ``init(json:source:)``; the variables at ``overriding(with:)``.
public struct CacheSettings: Hashable, Sendable {
    /// What `Timeout.useDefault` means: how long an entry whose request and domain chose nothing stays fresh.
    /// Default `.seconds(300)`, the seeds' `GraphQLCacheConfig.defaultTimeout`; `.never` is allowed,
    /// `.useDefault` is not.
    public var defaultTimeout: Timeout
    /// The seeds' `isTimeoutEnabled`: when off, nothing expires (every cached entry stays fresh until cleared), but
    /// domains whose policy is `never` are still not cached. Default `true`.
    public var isTimeoutEnabled: Bool
    /// Per-domain policy; a domain not listed here uses `.default`. Default: empty (every domain `.default`).
    ///
    /// `.default` entries are dropped as they are set, so settings that behave the same compare equal whether a
    /// domain's default policy was spelled out or left out.
    public var domainPolicies: [CacheDomain.Name: DomainCachePolicy] {
        didSet {
            if domainPolicies.values.contains(.default) {
                domainPolicies = domainPolicies.filter { $0.value != .default }
            }
        }
    }
    /// Memory limits of the process and of each session.
    public var memory: MemoryLimits
    /// How long sessions live and how many may be live at once.
    public var sessions: SessionLimits
    /// The domains the policies and domain clears refer to. Default: an empty map (no domain; every entry follows
    /// `defaultTimeout`). The fixture bank's map is opt-in: `domainMap: .banking`, ``banking``, or
    /// `"domainMap": "banking"` in the settings file.
    public var domainMap: CacheDomainMap
    /// The seeds' `clear_cache_on_settings_change` (scenario 8): whether a reload clears the data of the domains
    /// whose policy or definition changed, so the new settings apply at once instead of as entries expire.
    /// Default `false`.
    public var clearsAffectedDomainsOnChange: Bool

    /// Memory the caches may use. Every limit must be positive.
    public struct MemoryLimits: Hashable, Sendable, Codable {
        /// Bytes all caches of the process together may hold (CacheCore's `MemoryBudget`). Default 512 MiB.
        public var processBudgetBytes: Int
        /// Entries one session may hold before its least recently used ones are evicted. Default 10,000
        /// (CacheCore's `maxEntriesPerScope`).
        public var maxEntriesPerSession: Int
        /// Bytes one session may hold before its least recently used entries are evicted. Default 64 MiB
        /// (CacheCore's `maxBytesPerScope`).
        public var maxBytesPerSession: Int

        public init(
            processBudgetBytes: Int = 512 * 1024 * 1024,
            maxEntriesPerSession: Int = 10_000,
            maxBytesPerSession: Int = 64 * 1024 * 1024
        ) {
            self.processBudgetBytes = processBudgetBytes
            self.maxEntriesPerSession = maxEntriesPerSession
            self.maxBytesPerSession = maxBytesPerSession
        }
    }

    /// How sessions end by themselves. Both limits must be positive.
    ///
    /// Most users never log out: without these, every session a BFF ever saw would stay in memory.
    public struct SessionLimits: Hashable, Sendable, Codable {
        /// Seconds a session may stay unused before it ends by itself with reason `.sessionExpired`, everything
        /// cleared as at logout. Default 1,800 (30 minutes).
        public var idleTimeoutSeconds: Double
        /// Sessions that may be live at once; past it the least recently used session ends (an eviction).
        /// Default 100,000.
        public var maxSessions: Int

        public init(idleTimeoutSeconds: Double = 1_800, maxSessions: Int = 100_000) {
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.maxSessions = maxSessions
        }

        /// The idle timeout as a duration.
        public var idleTimeout: Duration { OutsideValue.clampedDuration(seconds: idleTimeoutSeconds) }
    }

    /// Resilience options per domain (the settings file's `failSafeMaxDuration`, `failSafeThrottleDuration`,
    /// `softTimeout`, `hardTimeout` and `eagerRefreshThreshold` keys of a domain), between a call's own options and
    /// the hub's default (`CacheHub.Configuration.resilience`). Default: none.
    public var domainResilience: [CacheDomain.Name: CacheResilience] = [:]

    public init(
        defaultTimeout: Timeout = .seconds(300),
        isTimeoutEnabled: Bool = true,
        domainPolicies: [CacheDomain.Name: DomainCachePolicy] = [:],
        memory: MemoryLimits = MemoryLimits(),
        sessions: SessionLimits = SessionLimits(),
        domainMap: CacheDomainMap = CacheDomainMap(),
        clearsAffectedDomainsOnChange: Bool = false
    ) {
        self.defaultTimeout = defaultTimeout
        self.isTimeoutEnabled = isTimeoutEnabled
        self.domainPolicies = domainPolicies.filter { $0.value != .default }
        self.memory = memory
        self.sessions = sessions
        self.domainMap = domainMap
        self.clearsAffectedDomainsOnChange = clearsAffectedDomainsOnChange
    }

    /// The defaults with the fixture bank's domain map (``CacheDomainMap/banking``): the settings the seeds' app
    /// ran with, for the bank's BFF and its fifteen granular clears. Opt-in; ``init(defaultTimeout:isTimeoutEnabled:domainPolicies:memory:sessions:domainMap:clearsAffectedDomainsOnChange:)``
    /// defaults to an empty map.
    public static var banking: CacheSettings {
        CacheSettings(domainMap: .banking)
    }

    /// The policy of a domain: the configured one, or `.default`.
    public func policy(for name: CacheDomain.Name) -> DomainCachePolicy {
        domainPolicies[name] ?? .default
    }

    /// Checks what the types cannot: the default timeout, the limits, and that every policy names a known domain.
    ///
    /// - Throws: `.invalidSettings` naming the field, or `.unknownDomain` naming the policy's domain.
    public func validate() throws(UnifiedCacheError) {
        switch defaultTimeout {
        case .useDefault:
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "the default timeout cannot itself be useDefault; give seconds or never",
                place: "timeouts.default"
            )
        case .seconds(let seconds) where !seconds.isFinite || seconds < 0:
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "expected a finite number of seconds ≥ 0, got \(seconds)",
                place: "timeouts.default"
            )
        case .seconds, .never:
            break
        }
        let limits = [
            ("memory.processBudgetBytes", memory.processBudgetBytes),
            ("memory.maxEntriesPerSession", memory.maxEntriesPerSession),
            ("memory.maxBytesPerSession", memory.maxBytesPerSession),
            ("sessions.maxSessions", sessions.maxSessions),
        ]
        for (place, value) in limits where value <= 0 {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "expected a positive integer, got \(value)", place: place)
        }
        let idle = sessions.idleTimeoutSeconds
        guard idle.isFinite, idle > 0, idle <= 31_536_000 else {
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "expected a number of seconds > 0 and at most a year, got \(idle)",
                place: "sessions.idleTimeoutSeconds"
            )
        }
        for name in domainPolicies.keys.sorted() where domainMap[name] == nil {
            throw UnifiedCacheError(
                code: .unknownDomain,
                message: "a policy is set for \(name), which the domain map does not define",
                place: "domains.\(name)"
            )
        }
        for domain in domainMap.domains {
            try domain.validate()
        }
    }
}
