import CacheCore
import GraphQLCache

/// Applies the settings to GraphQL: the global default timeout and switch become the client's
/// `GraphQLCacheConfig`, and per-domain policies decide, per operation, whether and how long answers are cached.
enum GraphQLSettingsBridge {
    /// `GraphQLCacheConfig` takes a finite default; a hundred years stands for "never" (`.never` in the settings).
    static let neverSeconds: Double = 100 * 365 * 24 * 3600

    /// The client's freshness rules from the settings (global default and switch; per-type and per-field TTLs
    /// come from the hub's configuration).
    static func cacheConfig(_ settings: CacheSettings, base: GraphQLCacheConfig) -> GraphQLCacheConfig {
        var config = base
        config.isTimeoutEnabled = settings.isTimeoutEnabled
        switch settings.defaultTimeout {
        case .seconds(let seconds): config.defaultTimeout = seconds
        case .never: config.defaultTimeout = neverSeconds
        case .useDefault: break
        }
        // A domain's resilience reaches the operations it names; options the app set per operation win.
        if !settings.domainResilience.isEmpty {
            for domain in settings.domainMap.domains {
                for operation in domain.graphQLOperations where base.operationResilience[operation] == nil {
                    let names = settings.domainMap.domainNames(forOperation: operation)
                    if let options = settings.resilience(forDomains: names) {
                        config.operationResilience[operation] = options
                    }
                }
            }
        }
        return config
    }

    /// The client's per-operation policy: operations of a domain set to `never` are neither read nor stored;
    /// `always` and `custom(n)` set the timeout; `default` leaves the client's own precedence in charge.
    static func cachingPolicy(
        _ settings: SettingsStore
    ) -> @Sendable (_ operationName: String, _ requested: QueryCacheTimeout) -> QueryCacheTimeout? {
        { operationName, requested in
            let current = settings.current
            let names = current.domainMap.domainNames(forOperation: operationName)
            let allDefault = names.allSatisfy { current.policy(for: $0) == .default }
            if allDefault && current.isTimeoutEnabled { return requested }
            switch current.cachingDecision(forDomains: names, requestTimeout: timeout(requested)) {
            case .doNotCache: return nil
            case .cache(let decided): return queryTimeout(decided)
            }
        }
    }

    private static func timeout(_ timeout: QueryCacheTimeout) -> Timeout {
        switch timeout {
        case .never: .never
        case .seconds(let seconds): .seconds(seconds)
        case .useDefault: .useDefault
        }
    }

    private static func queryTimeout(_ timeout: Timeout) -> QueryCacheTimeout {
        switch timeout {
        case .never: .never
        case .seconds(let seconds): .seconds(seconds)
        case .useDefault: .useDefault
        }
    }
}
