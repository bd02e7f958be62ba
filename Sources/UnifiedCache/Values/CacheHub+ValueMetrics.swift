import CacheCore

extension ValueCacheStatistics {
    /// Whether the value door was used at all: a hub that never caches a value exports no value series, so the
    /// exposition of a REST and GraphQL app stays as it was.
    var wasUsed: Bool {
        memory.hits + memory.staleHits + memory.misses + memory.inserts > 0 || factoryRuns > 0
    }

    /// The `ucache_values_*` counters of the door's own work (its memory figures are the `part="values"` series of
    /// the cache families), appended to ``CacheHub/metricFamilies()``.
    func metricFamilies(namespace: String = "ucache") -> [CacheMetricFamily] {
        CacheMetricFamily.counters(
            prefix: "\(namespace)_values",
            [
                (
                    "factory_runs",
                    "Factory runs of the value door: one per key and scope however many callers waited.",
                    factoryRuns
                ),
                ("factory_failures", "Factory runs that threw; nothing was stored.", factoryFailures),
                ("joined_calls", "Callers answered by another caller's factory run.", joinedCalls),
                (
                    "discarded_after_clear",
                    "Values a factory returned after their key, tag or session was cleared: returned, never stored.",
                    discardedAfterClear
                ),
                ("l2_hits", "Values read from the second level instead of running the factory.", secondLevelHits),
                (
                    "decode_failures", "Second-level values the coder could not decode (counted as misses).",
                    decodeFailures
                ),
            ])
    }
}
