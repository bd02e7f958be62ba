import Logging
import ServiceLifecycle
import UnifiedCache
import UnifiedCacheServerSupport

/// The hub as a ServiceLifecycle `Service`: part of the app's `ServiceGroup`, it runs until the group shuts down,
/// then drains before the hub stops.
///
/// While it runs it watches the hub: it runs the hub's maintenance when the hub's own task is off
/// (`Maintenance.interval == nil`), mirrors the hub's metrics (``CacheHubService/Configuration/metricsCollection``),
/// and ends with ``CacheHubServiceError`` when the hub can never work (a replication link refused for its
/// credentials), which ends the group under its default failure behaviour.
///
/// On graceful shutdown it waits, up to ``CacheHubService/Configuration/drainDeadline``, for the upstream calls in
/// flight (counted by ``CacheRequestsInFlight``, installed as the hub's instrumentation) so their answers reach
/// their callers, then calls `CacheHub.shutdown()`: ended sessions' clears finish, queued replicated clears are
/// flushed, the second level's store and the HTTP client close. Put it before the HTTP server in the group's
/// services: the group shuts services down in reverse order, so the server stops taking requests first.
///
/// ```swift
/// let inFlight = CacheRequestsInFlight()
/// configuration.instrumentation = inFlight
/// let hub = try CacheHub(configuration: configuration, settings: settings)
/// let group = ServiceGroup(
///     services: [CacheHubService(hub: hub, requestsInFlight: inFlight, logger: logger), app],
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public struct CacheHubService: Service {
    public let hub: CacheHub
    public let configuration: Configuration
    private let requestsInFlight: CacheRequestsInFlight?
    private let logger: Logger

    /// How the service watches and drains the hub.
    public struct Configuration: Sendable {
        /// How long a graceful shutdown waits for upstream calls in flight before the hub shuts down. Default 10 s.
        public var drainDeadline: Duration
        /// How often the service checks the hub's health (and collects metrics). Default 5 s.
        public var checkInterval: Duration
        /// How often the service runs the hub's maintenance when the hub's own task is off. Default 10 s.
        public var maintenanceInterval: Duration
        /// Called at every check (a ``CacheHubMetrics``' `collect`, say). Default: nil.
        public var metricsCollection: (@Sendable () -> Void)?
        /// Whether a replication link state means the configuration can never work. Default: a link refused for
        /// its credentials (RedisReplication's `authenticationFailed`, Redis's `NOAUTH` and `WRONGPASS`).
        public var isFatal: @Sendable (ReplicationLinkState) -> Bool

        public init(
            drainDeadline: Duration = .seconds(10), checkInterval: Duration = .seconds(5),
            maintenanceInterval: Duration = .seconds(10), metricsCollection: (@Sendable () -> Void)? = nil,
            isFatal: @escaping @Sendable (ReplicationLinkState) -> Bool = Configuration.refusedCredentials
        ) {
            self.drainDeadline = drainDeadline
            self.checkInterval = checkInterval
            self.maintenanceInterval = maintenanceInterval
            self.metricsCollection = metricsCollection
            self.isFatal = isFatal
        }

        /// The default of ``isFatal``.
        public static let refusedCredentials: @Sendable (ReplicationLinkState) -> Bool = { state in
            guard case .disconnected(let reason) = state else { return false }
            let upper = reason.uppercased()
            return ["AUTHENTICATIONFAILED", "NOAUTH", "WRONGPASS"].contains { upper.contains($0) }
        }
    }

    public init(
        hub: CacheHub, requestsInFlight: CacheRequestsInFlight? = nil, configuration: Configuration = Configuration(),
        logger: Logger
    ) {
        self.hub = hub
        self.requestsInFlight = requestsInFlight
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        var failure: CacheHubServiceError?
        do {
            try await cancelWhenGracefulShutdown { try await self.watch() }
        } catch let error as CacheHubServiceError {
            logger.error("cache hub cannot work", metadata: ["cache.error": "\(error)"])
            failure = error
        } catch {
            // Cancelled, or the graceful shutdown began: drain.
        }
        await drain()
        if let failure { throw failure }
    }

    /// Checks the hub until cancelled (which graceful shutdown does); throws on a fatal condition.
    private func watch() async throws {
        let clock = ContinuousClock()
        let runsMaintenance = hub.configuration.maintenance.interval == nil
        var nextMaintenance = clock.now.advanced(by: configuration.maintenanceInterval)
        while true {
            if let state = hub.replicationStatistics?.linkState, configuration.isFatal(state) {
                throw CacheHubServiceError(
                    code: .replicationRefused, message: "The replication link was refused: \(state).")
            }
            configuration.metricsCollection?()
            if runsMaintenance, clock.now >= nextMaintenance {
                _ = await hub.runMaintenance()
                nextMaintenance = clock.now.advanced(by: configuration.maintenanceInterval)
            }
            try await Task.sleep(for: configuration.checkInterval)
        }
    }

    /// Lets the answers in flight arrive (up to the deadline), then shuts the hub down.
    private func drain() async {
        let deadline = ContinuousClock.now.advanced(by: configuration.drainDeadline)
        if let requestsInFlight {
            let remaining = await requestsInFlight.waitUntilIdle(deadline: deadline)
            if remaining > 0 {
                logger.warning(
                    "cache hub shutting down with upstream calls in flight", metadata: ["cache.calls": "\(remaining)"])
            }
        }
        await hub.shutdown()
        configuration.metricsCollection?()
        logger.notice("cache hub stopped")
    }
}

/// Why ``CacheHubService`` ended the group: a stable code, a message that never contains credentials, and the cause.
public struct CacheHubServiceError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, stable across releases: compare with `==` over the static members; the description is the
    /// code's stable name.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case replicationRefused
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A replication link was refused for its credentials.
        public static let replicationRefused = Code(.replicationRefused)

        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// What happened, for a log; never contains credentials.
    public let message: String
    /// The error that caused this one, if any; not printed by ``description`` (its text may carry secrets).
    public let underlying: (any Error & Sendable)?

    init(code: Code, message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { "CacheHubServiceError(\(code)): \(message)" }
}
