import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnifiedCache
import UnifiedCacheMetrics

/// The entry point: configuration from the environment, the hub (one replica, or one of a fleet sharing a Redis) with
/// the app's logging, metrics and tracing, the routes, and one `ServiceGroup` for the server, the hub and the tracer:
/// SIGTERM or SIGINT stop the server first, then the hub lets the upstream calls in flight finish, ends every session
/// and closes its connections, Redis's included.
@main
struct BFFMain {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = exitingOnError { try BFFConfiguration(environment: environment) }
        if configuration.runsTasksOnEventLoops {
            // BFF_EXECUTOR=eventloop: Swift concurrency's jobs run on NIO's event loop threads (the ones Hummingbird
            // serves on) instead of a second pool. Only for code that never blocks a thread (true here: libcurl has
            // its own, cache reads take short locks). Must run before the first task is created.
            _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
        let observability = exitingOnError { try Observability(environment: environment) }
        let hub = exitingOnError {
            try CacheHub(
                configuration: observability.instrumenting(
                    hubConfiguration(upstream: configuration.upstream, environment: environment)),
                // The bank's domain map is opt-in: a settings file names it (`"domainMap": "banking"`); without a
                // file the BFF starts from the preset.
                // Either way the domains the dashboard reads name its memo's tag.
                settings: (environment["UCACHE_SETTINGS"] ?? "").isEmpty
                    ? SettingsStore(settings: CacheSettings.banking.withDashboardTag(), environment: environment)
                    : SettingsStore(
                        settings: CacheSettings.load(environment: environment).withDashboardTag(),
                        environment: environment),
                observer: observability.cacheEventObserver
            )
        }
        // Who a bearer token belongs to: `GET /api/profile`'s `id`, asked once per token (the stand-in for verifying
        // a JWT and taking its `sub`).
        let verifier = UpstreamTokenVerifier(
            configuration: .init(url: configuration.upstream + "/api/profile"), client: hub.client)
        let metrics = CacheHubMetrics(hub: hub)
        let router = makeRouter(
            hub: hub, verifier: verifier, configuration: configuration, observability: observability, metrics: metrics)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                // One line on stdout once the socket listens (scripts read the port from it when PORT=0).
                let port = channel.localAddress?.port ?? configuration.port
                let mode = configuration.floorBody != nil ? "floor" : configuration.cacheEnabled ? "on" : "off"
                let fleet = hub.replicationStatistics == nil ? "off" : "redis"
                let line =
                    "HUMMINGBIRD_BFF_READY url=http://\(configuration.host):\(port) cache=\(mode) fleet=\(fleet)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: observability.logger
        )
        // Services stop in reverse order: the server first (no new requests), then the hub, then the tracer.
        let group = ServiceGroup(
            configuration: .init(
                services: (observability.services(for: hub, metrics: metrics) + [app]).map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: observability.logger
            )
        )
        try await group.run()
        FileHandle.standardOutput.write(Data("HUMMINGBIRD_BFF_STOPPED sessions ended, connections closed\n".utf8))
    }

    /// The value of `body`, or a one-line error on stderr and exit status 78 (EX_CONFIG) when the environment is
    /// wrong: a configuration mistake is not a crash with a backtrace. The errors never print secrets.
    private static func exitingOnError<Value>(_ body: () throws -> Value) -> Value {
        do {
            return try body()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(78)
        }
    }
}
