/// Where a query's answer may come from, as the caller (the seeds' MIB layer) decides per call.
///
/// The names are Apollo's, as the seeds use them. The decision matrix of the seeds: initial loads and
/// navigation use the default; pull-to-refresh, the reads right after a mutation and critical validations use
/// ``fetchIgnoringCacheData``; background sync uses ``returnCacheDataAndFetch``; offline use
/// ``returnCacheDataDontFetch``; transient queries ``fetchIgnoringCacheCompletely``.
import GraphQLLanguage

public enum GraphQLCachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Cache first (the default): a fresh cached answer if every selected field is cached and within its
    /// time-to-live; otherwise the network, and the answer is stored.
    case returnCacheDataElseFetch
    /// Network only: always fetch, and store the answer (pull-to-refresh, after mutations, critical reads).
    case fetchIgnoringCacheData
    /// Cache then network: the cached answer now (fresh or stale) and the network's answer after it, which is
    /// stored. Without a cached answer, the network's answer only.
    case returnCacheDataAndFetch
    /// Cache only: the cached answer (marked stale when it is), or a `cacheMiss` error; never fetches.
    case returnCacheDataDontFetch
    /// No cache: fetch, and neither read nor store.
    case fetchIgnoringCacheCompletely

    /// `.returnCacheDataElseFetch`, as in the seeds.
    public static var `default`: GraphQLCachePolicy {
        .returnCacheDataElseFetch
    }

    /// Whether the policy may answer from the cache.
    var readsCache: Bool {
        switch self {
        case .returnCacheDataElseFetch, .returnCacheDataAndFetch, .returnCacheDataDontFetch: true
        case .fetchIgnoringCacheData, .fetchIgnoringCacheCompletely: false
        }
    }
}
