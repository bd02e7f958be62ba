import Synchronization
import UnifiedCache

/// Counts the hub's upstream calls in flight (REST and GraphQL), so a lifecycle (ServiceLifecycle's
/// `CacheHubService`, Vapor's `CacheHubLifecycle`) can let them finish before the hub shuts down. Install it as (or
/// in a `CacheInstrumentationGroup` of) the hub's instrumentation.
public final class CacheRequestsInFlight: CacheInstrumentation {
    private let count = Atomic<Int>(0)

    public init() {}

    /// Upstream calls started and not yet answered.
    public var current: Int { count.load(ordering: .acquiring) }

    public func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        if Self.counts(operation) { count.add(1, ordering: .acquiringAndReleasing) }
        return CacheOperationToken(operation: operation)
    }

    public func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        if Self.counts(token.operation) { count.subtract(1, ordering: .acquiringAndReleasing) }
    }

    /// Waits until no call is in flight, the deadline passes or the task is cancelled; returns the calls left.
    public func waitUntilIdle(deadline: ContinuousClock.Instant) async -> Int {
        while current > 0, ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                break
            }
        }
        return current
    }

    private static func counts(_ operation: CacheOperation) -> Bool {
        operation == .restFetch || operation == .graphQLFetch
    }
}
