import CacheCore
import RESTCache

/// Applies the settings to REST entries as they are stored: tags each entry with every domain it belongs to (by
/// key prefix, route or declared domain), so later clears find it through CacheCore's domain index; decides its
/// timeout from the domains' policies (never / always / custom / default); and records the entities its answer
/// describes (entity links), so a GraphQL change of those entities finds it.
enum RESTSettingsBridge {
    static func storagePolicy(
        _ settings: SettingsStore,
        links: EntityLinks
    ) -> APIService.StoragePolicy {
        { key, metadata, response in
            let current = settings.current
            let names = current.domainMap.domainNames(forRESTKey: key, tags: metadata.domains.union(metadata.tags))
            switch current.cachingDecision(forDomains: names, requestTimeout: metadata.timeout) {
            case .doNotCache:
                return nil
            case .cache(let timeout):
                var tagged = metadata
                tagged.timeout = timeout
                for tag in metadata.tags where tag.hasPrefix("path:") {
                    tagged.entityKeys.formUnion(
                        links.entityKeys(readingPath: String(tag.dropFirst(5)), body: response.body))
                }
                for name in names {
                    tagged.domains.insert(name.rawValue)
                    if let domain = current.domainMap[name] { tagged.domains.formUnion(domain.restDomains) }
                }
                return tagged
            }
        }
    }
}
