import CacheCore
import Foundation
import Synchronization

/// Where a reload reads its settings from.
public enum SettingsSource: Sendable {
    /// The JSON file at this path.
    case file(String)
    /// A JSON document already in memory (from an admin endpoint, a config service, a test), named `source` in
    /// messages.
    case json(Data, source: String? = nil)
    /// The file named by `UCACHE_SETTINGS` in the store's environment, or the defaults when it is not set.
    case environment
    /// Settings built in code.
    case settings(CacheSettings)
}

/// The settings in force for a process, replaceable while it serves requests.
///
/// Every request reads the current settings (a lock and a copy of a few references), so a reload takes effect for
/// the next request without restarting the server. A reload that fails — a file with a syntax error, an unknown
/// domain — leaves the previous settings in force and throws, so a typo in production cannot switch caching off.
/// The environment's overrides (``SettingsEnvironmentVariable``) are applied again on every reload: they beat
/// every file.
public final class SettingsStore: Sendable {
    private let state: Mutex<CacheSettings>
    /// Whether any domain of the settings in force sets resilience options at all: read on every REST store and
    /// stale read, so a hub whose settings set none never works out a request's domains for them.
    let setsDomainResilience = Atomic<Bool>(false)
    /// The lowest eager-refresh threshold of any domain (its bit pattern; NaN's when none): a fresh REST hit younger
    /// than it never works out its domains' options.
    private let lowestThresholdBits = Atomic<UInt64>(Double.nan.bitPattern)
    /// Counts reloads, so that what is derived from the settings can be kept until they change.
    let revision = Atomic<Int>(0)
    /// The variables whose overrides every reload applies.
    public let environment: [String: String]

    /// A store holding `settings` with `environment`'s overrides applied.
    ///
    /// - Throws: the errors of ``CacheSettings/overriding(with:)``.
    public init(settings: CacheSettings = CacheSettings(), environment: [String: String] = [:])
        throws(UnifiedCacheError)
    {
        self.environment = environment
        let settings = try settings.overriding(with: environment)
        state = Mutex(settings)
        publishFlags(of: settings)
    }

    /// A store loaded the way a process starts: `UCACHE_SETTINGS`'s file (if set), then the overrides.
    public convenience init(environment: [String: String]) throws(UnifiedCacheError) {
        try self.init(settings: CacheSettings.load(environment: environment), environment: environment)
    }

    /// The settings in force now.
    public var current: CacheSettings {
        state.withLock { $0 }
    }

    /// The lowest eager-refresh threshold any domain of the settings in force sets (an atomic load).
    @usableFromInline
    var lowestEagerRefreshThreshold: Double? {
        let threshold = Double(bitPattern: lowestThresholdBits.load(ordering: .relaxed))
        return threshold.isNaN ? nil : threshold
    }

    /// Updates the flags the hit and store paths read without taking the lock.
    private func publishFlags(of settings: CacheSettings) {
        let lowest = settings.lowestEagerRefreshThreshold
        lowestThresholdBits.store((lowest ?? .nan).bitPattern, ordering: .relaxed)
        setsDomainResilience.store(!settings.domainResilience.isEmpty, ordering: .relaxed)
    }

    /// Reads new settings from `source`, applies the environment's overrides, puts them in force and says what
    /// changed.
    ///
    /// - Throws: any error of reading, parsing or validating; the previous settings then stay in force.
    @discardableResult
    public func reload(from source: SettingsSource) throws(UnifiedCacheError) -> SettingsChange {
        let loaded: CacheSettings
        switch source {
        case .file(let path): loaded = try CacheSettings.load(file: path, environment: environment)
        case .json(let data, let name):
            loaded = try CacheSettings(json: data, source: name).overriding(with: environment)
        case .environment: loaded = try CacheSettings.load(environment: environment)
        case .settings(let settings): loaded = try settings.overriding(with: environment)
        }
        let previous = state.withLock { current in
            let previous = current
            current = loaded
            publishFlags(of: loaded)
            revision.wrappingAdd(1, ordering: .releasing)
            return previous
        }
        return SettingsChange(from: previous, to: loaded)
    }

    /// ``CacheSettings/cachingDecision(forDomain:requestTimeout:)`` with the settings in force.
    public func cachingDecision(forDomain name: CacheDomain.Name?, requestTimeout: Timeout) -> CachingDecision {
        current.cachingDecision(forDomain: name, requestTimeout: requestTimeout)
    }

    /// ``CacheSettings/cachingDecision(forRESTKey:tags:requestTimeout:)`` with the settings in force.
    public func cachingDecision(forRESTKey key: String, tags: Set<String>, requestTimeout: Timeout) -> CachingDecision {
        current.cachingDecision(forRESTKey: key, tags: tags, requestTimeout: requestTimeout)
    }

    /// ``CacheSettings/cachingDecision(forOperation:requestTimeout:)`` with the settings in force.
    public func cachingDecision(forOperation operationName: String?, requestTimeout: Timeout) -> CachingDecision {
        current.cachingDecision(forOperation: operationName, requestTimeout: requestTimeout)
    }
}
