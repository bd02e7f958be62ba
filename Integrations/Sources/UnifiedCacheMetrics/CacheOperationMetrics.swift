import CoreMetrics
import Synchronization
import UnifiedCache

/// Durations of the cache's operations as swift-metrics `Timer`s (histograms in seconds), named and labelled as
/// OpenTelemetry's semantic conventions say, in whatever backend the app bootstrapped.
///
/// Install it as the hub's instrumentation (beside tracing with ``CacheInstrumentationGroup``):
///
/// | timer | operations | dimensions |
/// |---|---|---|
/// | `http.client.request.duration` | upstream calls, REST and GraphQL | `http.request.method`, `server.address`, `server.port`, `url.template`, `http.response.status_code`, `error.type` |
/// | `db.client.operation.duration` | second-level reads, clears published on the bus | `db.system.name`, `db.operation.name`, `server.address`, `server.port`, `ucache.outcome` (reads) or `ucache.reason` (the clear's kind), `error.type` |
/// | `ucache.session.end.duration` | session endings | `ucache.reason` |
///
/// `url.template` is the route template (`/api/accounts/{id}/balance`), never the raw path; a dimension without a
/// value (no status after a transport failure, no error on success) is left out. Every dimension takes a bounded
/// set of values: no session, account, token or key. A hit is no operation: the hub counts hits itself
/// (``CacheHubMetrics`` mirrors them), so reporting one costs nothing here.
public final class CacheOperationMetrics: CacheInstrumentation {
    /// The timers' names.
    public enum Name {
        /// OpenTelemetry's HTTP client request duration.
        public static let httpClientRequestDuration = "http.client.request.duration"
        /// OpenTelemetry's database client operation duration.
        public static let databaseClientOperationDuration = "db.client.operation.duration"
        /// How long ending a session took (its clears), the library's own.
        public static let sessionEndDuration = "ucache.session.end.duration"
    }

    private let factory: any MetricsFactory
    private let timers = Mutex<[TimerID: Timer]>([:])

    private struct TimerID: Hashable {
        var label: String
        var dimensions: [String]
    }

    /// - Parameter factory: the metrics backend; the default is the one the app bootstrapped.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
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
        let id = Self.timerID(operation, attributes)
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

    private static func timerID(_ operation: CacheOperation, _ attributes: CacheOperationAttributes) -> TimerID {
        typealias Attribute = CacheAttributeName
        var dimensions: [String] = []
        func add(_ name: String, _ value: String?) {
            guard let value else { return }
            dimensions.append(name)
            dimensions.append(value)
        }
        switch operation {
        case .restFetch, .graphQLFetch:
            add(Attribute.httpRequestMethod, attributes.method)
            add(Attribute.serverAddress, attributes.serverAddress)
            add(Attribute.serverPort, attributes.serverPort.map(String.init))
            add(Attribute.urlTemplate, attributes.route)
            add(Attribute.httpResponseStatusCode, attributes.status.map(String.init))
            add(Attribute.errorType, attributes.errorType)
            return TimerID(label: Name.httpClientRequestDuration, dimensions: dimensions)
        case .secondLevelRead, .replicatedClear:
            add(Attribute.databaseSystem, attributes.databaseSystem)
            add(Attribute.databaseOperation, attributes.databaseOperation)
            add(Attribute.serverAddress, attributes.serverAddress)
            add(Attribute.serverPort, attributes.serverPort.map(String.init))
            add(Attribute.outcome, attributes.outcome)
            add(Attribute.reason, attributes.reason)
            add(Attribute.errorType, attributes.errorType)
            return TimerID(label: Name.databaseClientOperationDuration, dimensions: dimensions)
        case .sessionEnding:
            add(Attribute.reason, attributes.reason ?? "other")
            return TimerID(label: Name.sessionEndDuration, dimensions: dimensions)
        }
    }
}
