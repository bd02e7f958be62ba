import RESTCache
import Synchronization

/// The key prefixes clears name, those of the domain map and of the REST invalidation rules: a REST answer written to
/// the second level is tagged with each its key starts with. Made once per settings revision, not on every write
/// (made each time, sorting the domain map was about 36,000 instructions a write, more than its sealing).
final class ClearedKeyPrefixes: Sendable {
    private let settings: SettingsStore
    /// The invalidation rules' prefixes: the REST configuration does not change.
    private let rulePrefixes: Set<String>
    private let made: Mutex<(revision: Int, prefixes: Set<String>)?> = Mutex(nil)

    init(settings: SettingsStore, rest: APIService.Configuration) {
        self.settings = settings
        var prefixes: Set<String> = []
        for rule in rest.invalidationRules {
            for case .keyPrefix(let prefix) in rule.targets { prefixes.insert(prefix) }
        }
        rulePrefixes = prefixes
    }

    /// The prefixes under the current settings. A reload between reading the revision and the settings leaves the
    /// set tagged with the older revision, so the next call makes it again.
    var current: Set<String> {
        let revision = settings.revision.load(ordering: .acquiring)
        if let made = made.withLock({ $0 }), made.revision == revision { return made.prefixes }
        var prefixes = rulePrefixes
        for domain in settings.current.domainMap.domains { prefixes.formUnion(domain.restKeyPrefixes) }
        made.withLock { $0 = (revision, prefixes) }
        return prefixes
    }
}
