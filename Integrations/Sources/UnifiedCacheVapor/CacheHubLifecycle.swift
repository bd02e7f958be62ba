import Dispatch
import Synchronization
import UnifiedCache
import UnifiedCacheServerSupport
import Vapor

/// Ties the hub to a Vapor application's life: registered with `app.lifecycle.use(_:)`, it starts the hub's
/// housekeeping when the app boots and drains and shuts the hub down when the app shuts down.
///
/// - Boot: the hub's HTTP client, replication and second level start when the hub is made; what the handler starts
///   is the hub's maintenance (ending idle sessions, purging expired data) when the hub's own task is off
///   (`Maintenance.interval == nil`), every ``maintenanceInterval``, so one clock drives it with the app.
/// - Shutdown: Vapor runs the handlers after the server stopped taking requests. The handler waits, up to
///   ``drainDeadline``, for the upstream calls still in flight (refreshes behind stale answers, counted by the
///   ``CacheRequestsInFlight`` installed as the hub's instrumentation) so their answers are stored, then calls
///   `CacheHub.shutdown()`: ended sessions' clears finish, queued replicated clears are flushed, the second level's
///   store and the HTTP client close.
///
/// ```swift
/// let inFlight = CacheRequestsInFlight()
/// configuration.instrumentation = inFlight
/// let hub = try CacheHub(configuration: configuration, settings: SettingsStore())
/// app.lifecycle.use(CacheHubLifecycle(hub: hub, requestsInFlight: inFlight))
/// ```
public struct CacheHubLifecycle: LifecycleHandler {
    /// The hub the handler runs and shuts down.
    public let hub: CacheHub
    /// How long shutdown waits for upstream calls in flight before the hub shuts down. Default 10 s.
    public let drainDeadline: Duration
    /// How often the handler runs the hub's maintenance when the hub's own task is off. Default 10 s.
    public let maintenanceInterval: Duration
    private let requestsInFlight: CacheRequestsInFlight?
    private let state = LifecycleState()

    public init(
        hub: CacheHub, requestsInFlight: CacheRequestsInFlight? = nil, drainDeadline: Duration = .seconds(10),
        maintenanceInterval: Duration = .seconds(10)
    ) {
        self.hub = hub
        self.requestsInFlight = requestsInFlight
        self.drainDeadline = drainDeadline
        self.maintenanceInterval = maintenanceInterval
    }

    public func didBoot(_ application: Application) throws {
        guard hub.configuration.maintenance.interval == nil else { return }
        let hub = hub
        let interval = maintenanceInterval
        state.startMaintenance {
            Task {
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(for: interval)
                    } catch {
                        return
                    }
                    _ = await hub.runMaintenance()
                }
            }
        }
    }

    public func shutdownAsync(_ application: Application) async {
        guard state.beginShutdown() else { return }
        let deadline = ContinuousClock.now.advanced(by: drainDeadline)
        if let requestsInFlight {
            let remaining = await requestsInFlight.waitUntilIdle(deadline: deadline)
            if remaining > 0 {
                application.logger.warning(
                    "cache hub shutting down with upstream calls in flight", metadata: ["cache.calls": "\(remaining)"])
            }
        }
        await hub.shutdown()
        application.logger.notice("cache hub stopped")
    }

    /// The blocking shutdown of `Application.shutdown()` (apps that still call it): runs the async one on another
    /// task and waits for it, as that API blocks its caller until the app is down.
    public func shutdown(_ application: Application) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await shutdownAsync(application)
            done.signal()
        }
        done.wait()
    }
}

/// The maintenance task and whether shutdown began; shared by the handler's copies (Vapor stores it by value).
private final class LifecycleState: Sendable {
    private struct Fields {
        var maintenance: Task<Void, Never>?
        var isShutDown = false
    }

    private let fields = Mutex(Fields())

    func startMaintenance(_ start: () -> Task<Void, Never>) {
        fields.withLock { fields in
            guard fields.maintenance == nil, !fields.isShutDown else { return }
            fields.maintenance = start()
        }
    }

    /// Stops the maintenance; false when shutdown already began (a second call does nothing).
    func beginShutdown() -> Bool {
        fields.withLock { fields in
            guard !fields.isShutDown else { return false }
            fields.isShutDown = true
            fields.maintenance?.cancel()
            fields.maintenance = nil
            return true
        }
    }
}
