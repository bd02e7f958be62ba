import CoreMetrics
import Synchronization
import UnifiedCache

/// Latency of the cache's operations as swift-metrics `Timer`s, in whatever backend the app bootstrapped.
///
/// Install it as the hub's instrumentation (beside tracing with ``CacheInstrumentationGroup``):
///
/// | timer                                       | dimensions                   |
/// |---------------------------------------------|------------------------------|
/// | `ucache_upstream_request_duration_seconds`  | `part`, `outcome`, `status_class` |
/// | `ucache_l2_read_duration_seconds`           | `part`, `outcome`            |
/// | `ucache_replication_publish_duration_seconds` | `kind`                     |
/// | `ucache_session_end_duration_seconds`       | `reason`                     |
///
/// Every dimension takes a handful of values (`rest`/`graphql`; `miss`/`revalidate`/`uncached`; `2xx`…`5xx`,
/// `failed`; the clear kinds and reasons): no session, account, route or operation name.
public final class CacheOperationMetrics: CacheInstrumentation {
    private let namespace: String
    private let factory: any MetricsFactory
    private let timers = Mutex<[TimerID: Timer]>([:])

    private struct TimerID: Hashable {
        var label: String
        var dimensions: [String]
    }

    /// - Parameters:
    ///   - namespace: the metric names' prefix, as `CacheHub.metricsText()`'s (`ucache`).
    ///   - factory: the metrics backend; the default is the one the app bootstrapped.
    public init(namespace: String = "ucache", factory: any MetricsFactory = MetricsSystem.factory) {
        self.namespace = namespace
        self.factory = factory
    }

    public func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        CacheOperationToken(operation: operation)
    }

    public func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        let elapsed = ContinuousClock.now - token.startedAt
        let (seconds, attoseconds) = elapsed.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        timer(for: token.operation, attributes).recordNanoseconds(nanoseconds)
    }

    private func timer(for operation: CacheOperation, _ attributes: CacheOperationAttributes) -> Timer {
        let id = Self.timerID(namespace, operation, attributes)
        return timers.withLock { timers in
            if let timer = timers[id] { return timer }
            var dimensions: [(String, String)] = []
            var index = 0
            while index + 1 < id.dimensions.count {
                dimensions.append((id.dimensions[index], id.dimensions[index + 1]))
                index += 2
            }
            let timer = Timer(label: id.label, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
            timers[id] = timer
            return timer
        }
    }

    private static func timerID(
        _ namespace: String, _ operation: CacheOperation, _ attributes: CacheOperationAttributes
    ) -> TimerID {
        switch operation {
        case .restFetch, .graphQLFetch:
            let statusClass = attributes.status.map { "\($0 / 100)xx" } ?? "failed"
            return TimerID(
                label: namespace + "_upstream_request_duration_seconds",
                dimensions: [
                    "part", attributes.part ?? "rest", "outcome", attributes.outcome ?? "miss", "status_class",
                    statusClass,
                ])
        case .secondLevelRead:
            return TimerID(
                label: namespace + "_l2_read_duration_seconds",
                dimensions: ["part", attributes.part ?? "rest", "outcome", attributes.outcome ?? "miss"])
        case .replicatedClear:
            return TimerID(
                label: namespace + "_replication_publish_duration_seconds",
                dimensions: ["kind", attributes.reason ?? "other"])
        case .sessionEnding:
            return TimerID(
                label: namespace + "_session_end_duration_seconds",
                dimensions: ["reason", attributes.reason ?? "other"])
        }
    }
}
