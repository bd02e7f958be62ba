import CacheCore
import RESTCache

extension CacheSettings {
    /// The settings file's resilience keys of a domain, each in seconds except the threshold (a share, 0 < x < 1).
    static let resilienceKeys = [
        "failSafeMaxDuration", "failSafeThrottleDuration", "softTimeout", "hardTimeout", "eagerRefreshThreshold",
    ]

    /// The lowest eager-refresh threshold any domain sets.
    var lowestEagerRefreshThreshold: Double? {
        domainResilience.values.compactMap(\.eagerRefreshThreshold).min()
    }

    /// The options of the first of `names` (in name order) that sets any: a request belongs to one domain in
    /// practice; when several apply, the order is stable.
    func resilience(forDomains names: Set<CacheDomain.Name>) -> CacheResilience? {
        guard !domainResilience.isEmpty else { return nil }
        var merged: CacheResilience?
        for name in names.sorted() {
            guard let options = domainResilience[name] else { continue }
            merged = merged.map { $0.merged(over: options) } ?? options
        }
        return merged
    }
}

/// The hub's per-domain resilience for its REST door: read from the settings in force on each call, so a reload
/// takes effect for the next request.
struct RESTSettingsResilience: RESTDomainResilience {
    let settings: SettingsStore

    var refreshesEagerly: Bool {
        settings.lowestEagerRefreshThreshold != nil
    }

    var lowestEagerRefreshThreshold: Double? {
        settings.lowestEagerRefreshThreshold
    }

    var setsAnyOptions: Bool {
        settings.setsDomainResilience.load(ordering: .relaxed)
    }

    func resilience(forKey key: String, domains: Set<String>) -> CacheResilience? {
        let current = settings.current
        guard !current.domainResilience.isEmpty else { return nil }
        return current.resilience(forDomains: current.domainMap.domainNames(forRESTKey: key, tags: domains))
    }
}
