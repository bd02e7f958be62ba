import CacheCore

/// Resilience options per domain, for ``APIService/Configuration/domainResilience``: the hub answers from its
/// settings file (each domain's `failSafeMaxDuration`, `softTimeout`, … keys), reloaded with the rest of the
/// settings.
public protocol RESTDomainResilience: Sendable {
    /// Whether any domain sets an eager-refresh threshold (what the default ``lowestEagerRefreshThreshold`` is
    /// made from).
    var refreshesEagerly: Bool { get }

    /// The lowest eager-refresh threshold any domain sets, or nil when none does. Read on every fresh hit, so it must
    /// be cheap (an atomic load): a hit that has not lived this share of its lifetime never asks
    /// ``resilience(forKey:domains:)``.
    var lowestEagerRefreshThreshold: Double? { get }

    /// Whether any domain sets any option. Read on every store and stale read, so it must be cheap (an atomic load):
    /// when false, the door does not work out a request's domains for ``resilience(forKey:domains:)``.
    var setsAnyOptions: Bool { get }

    /// The options of the domains a request belongs to (by its cache key and its declared domains and tags), or nil
    /// when none sets any. Asked on misses, stale entries and stores, and on fresh hits past
    /// ``lowestEagerRefreshThreshold``.
    func resilience(forKey key: String, domains: Set<String>) -> CacheResilience?
}

extension RESTDomainResilience {
    /// Zero when some domain refreshes eagerly (every fresh hit then asks for its options), nil otherwise: a
    /// conformer that can keep the real lowest threshold at hand should.
    public var lowestEagerRefreshThreshold: Double? {
        refreshesEagerly ? 0 : nil
    }
}
