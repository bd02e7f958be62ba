import CacheCore
import GraphQLLanguage

extension GraphQLNormalizedStore {
    /// Counts what the GraphQL client sees but the store does not (upstream calls, de-duplicated joins), so the
    /// scope's statistics and events cover the whole request path, as `CacheStore.record(_:in:)` does for REST.
    public func record(_ activity: CacheActivity, in scope: CacheScope) {
        let table = self.table(for: scope) ?? createTable(for: scope)
        switch activity {
        case .networkFetch:
            table.countNetworkFetch()
        case .deduplicatedJoin:
            table.countDeduplicatedJoin()
        }
        guard let observer else {
            return
        }
        switch activity {
        case .networkFetch(let key, let status, let duration):
            observer.cacheDidEmit(.networkCall(scope: scope, key: key, status: status, duration: duration))
        case .deduplicatedJoin(let key):
            observer.cacheDidEmit(.deduplicatedJoin(scope: scope, key: key))
        }
    }
}
