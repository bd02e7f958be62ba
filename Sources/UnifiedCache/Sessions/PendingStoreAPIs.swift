// Temporary: the store-level APIs land with the store branch; removed at its merge.
import CacheCore
import GraphQLCache

struct PendingGraphQLPurgeReport { var records = 0; var bytes = 0; var droppedScopes = 0 }
extension GraphQLNormalizedStore {
    func purgeRecords(writtenBefore cutoff: CacheInstant) -> PendingGraphQLPurgeReport { PendingGraphQLPurgeReport() }
    func updateLimits(maxBytesPerScope: Int) throws(GraphQLCacheError) {}
}
extension CacheStore {
    func updateLimits(maxEntriesPerScope: Int, maxBytesPerScope: Int) throws(CacheCoreError) {}
}
extension MemoryBudget {
    func updateLimit(_ limit: Int) throws(CacheCoreError) {}
}
