import CacheCore
import GraphQLCache

extension CacheHub {
    /// A hub-wide clear of `domains` (a settings reload, here or on another replica) reaches what the sessions share
    /// too: REST entries of the shared scope tagged with or keyed under them (uplifted ones stay, as in a session),
    /// and every `PUBLIC` GraphQL answer kept for sharing (they have no index by domain; refetched on demand).
    func clearSharedAnswers(of domains: [CacheDomain], reason: ClearReason) {
        guard !domains.isEmpty else { return }
        for domain in domains {
            for tag in domain.restDomains.sorted() { restStore.clear(domain: tag, in: .shared, reason: reason) }
            for tag in domain.valueTags.sorted() { valueStore.clear(domain: tag, in: .shared, reason: reason) }
            for prefix in domain.restKeyPrefixes.sorted() {
                restStore.clear(keyPrefix: prefix, in: .shared, reason: reason)
            }
        }
        graphQLStore.removeSharedPublicResponses()
    }
}
