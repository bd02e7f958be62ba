import CacheCore

extension CacheHub {
    /// `ucache_stale_answers_total{part, reason}`: answers a resilience option decided (`fail_safe`,
    /// `soft_timeout`, `eager_refresh`), per front door. Only once there is one, so the exposition of a hub that
    /// never needed resilience stays as it was. (The GraphQL door joins here when its client counts them.)
    func staleAnswersFamily() -> CacheMetricFamily? {
        let name = "ucache_stale_answers_total"
        var samples: [CacheMetricFamily.Sample] = []
        for (part, counts) in [("rest", factory.restCore.staleAnswers), ("values", valueCore.staleAnswers)] {
            for (reason, count) in counts.counts {
                samples.append(
                    CacheMetricFamily.Sample(
                        name: name, labels: [.init("part", part), .init("reason", reason.rawValue)], value: .int(count))
                )
            }
        }
        guard samples.contains(where: { $0.value != .int(0) }) else { return nil }
        return CacheMetricFamily(
            name: name,
            help:
                "Answers decided by a resilience option (fail-safe, soft timeout, eager refresh), per part and reason.",
            kind: .counter, samples: samples)
    }
}
