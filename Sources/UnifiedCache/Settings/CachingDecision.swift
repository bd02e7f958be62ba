import CacheCore

/// Whether and for how long a response is cached once the settings have had their say.
public enum CachingDecision: Hashable, Sendable {
    /// Fetch from the network and store nothing (a domain whose policy is `never`).
    case doNotCache
    /// Store with this timeout; never `.useDefault`, which the settings have already resolved.
    case cache(Timeout)

    /// The timeout to store with, or `nil` for `doNotCache`.
    public var timeout: Timeout? {
        guard case .cache(let timeout) = self else {
            return nil
        }
        return timeout
    }

    /// Orders decisions from the most to the least cautious: not caching, then shorter, then longer timeouts, then
    /// never expiring. When an entry belongs to several domains the most cautious decision wins, so a domain that
    /// must not be cached is never cached because another domain allows it.
    fileprivate var caution: (Int, Double) {
        switch self {
        case .doNotCache: return (0, 0)
        case .cache(.seconds(let seconds)): return (1, seconds)
        case .cache(.never), .cache(.useDefault): return (2, 0)
        }
    }
}

extension CacheSettings {
    /// How a response of one domain is cached, given the timeout its request asked for.
    ///
    /// - `never` → ``CachingDecision/doNotCache`` (whatever else is set);
    /// - timeouts switched off (``isTimeoutEnabled`` false) → `.cache(.never)`;
    /// - `always` → `.cache(.never)`; `custom(n)` → `.cache(.seconds(n))`;
    /// - `default`, or a domain that is `nil` or has no policy → the request's own timeout, `.useDefault` being
    ///   replaced by ``defaultTimeout``.
    public func cachingDecision(forDomain name: CacheDomain.Name?, requestTimeout: Timeout) -> CachingDecision {
        let policy = name.map(policy(for:)) ?? .default
        if case .never = policy {
            return .doNotCache
        }
        guard isTimeoutEnabled else {
            return .cache(.never)
        }
        switch policy {
        case .never: return .doNotCache
        case .always: return .cache(.never)
        case .custom(let seconds): return .cache(.seconds(seconds))
        case .default: return .cache(requestTimeout.resolved(default: defaultTimeout))
        }
    }

    /// How a response belonging to several domains (or none) is cached: the most cautious of the domains'
    /// decisions (see ``CachingDecision``); with no domain, the request's own timeout.
    public func cachingDecision(forDomains names: Set<CacheDomain.Name>, requestTimeout: Timeout) -> CachingDecision {
        guard !names.isEmpty else {
            return cachingDecision(forDomain: nil, requestTimeout: requestTimeout)
        }
        let decisions = names.map { cachingDecision(forDomain: $0, requestTimeout: requestTimeout) }
        return decisions.min { $0.caution < $1.caution } ?? .doNotCache
    }

    /// How a REST response is cached: its domains come from its key, tags (`Cacheable.domains`) and route tag.
    public func cachingDecision(forRESTKey key: String, tags: Set<String>, requestTimeout: Timeout) -> CachingDecision {
        cachingDecision(forDomains: domainMap.domainNames(forRESTKey: key, tags: tags), requestTimeout: requestTimeout)
    }

    /// How the result of a GraphQL operation is cached: its domains are those listing the operation's name.
    public func cachingDecision(forOperation operationName: String?, requestTimeout: Timeout) -> CachingDecision {
        let names = operationName.map(domainMap.domainNames(forOperation:)) ?? []
        return cachingDecision(forDomains: names, requestTimeout: requestTimeout)
    }
}
