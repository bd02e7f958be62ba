import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnifiedCache
import UnifiedCacheMetrics

/// The entry point: configuration from the environment, the hub (one replica, or one of a fleet sharing a Redis) with
/// the app's logging, metrics and tracing, the routes, and one `ServiceGroup` for the server and the hub: SIGTERM or
/// SIGINT stop the server first, then the hub lets the upstream calls in flight finish, ends every session and closes
/// its connections, Redis's included.
@main
struct BFFMain {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = exitingOnError { try BFFConfiguration(environment: environment) }
        if configuration.runsTasksOnEventLoops {
            // BFF_EXECUTOR=eventloop: Swift concurrency's jobs run on NIO's event loop threads (the ones Hummingbird
            // serves on) instead of a second pool: no hop to the pool and back per request, but a loop's tasks
            // cannot move to the other thread while the loop's thread waits for a core, which made the p99 worse
            // on 2 shared cores. Only for code that never blocks a thread (true here: libcurl has its own, cache
            // reads take short locks). Must run before the first task is created.
            _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
        let observability = Observability(environment: environment)
        let logger = observability.logger
        let hub = exitingOnError {
            try CacheHub(
                configuration: observability.instrumenting(configuration.hub(environment: environment)),
                // The bank's domain map is opt-in: a settings file names it (`"domainMap": "banking"`); without a
                // file the BFF starts from the preset.
                settings: (environment["UCACHE_SETTINGS"] ?? "").isEmpty
                    ? SettingsStore(settings: .banking, environment: environment)
                    : SettingsStore(environment: environment),
                observer: observability.cacheEventObserver
            )
        }
        let hubMetrics = CacheHubMetrics(hub: hub)
        let verificationClient = try CurlHTTPClient()
        let bff = BankBFF(
            hub: hub,
            verifier: TokenVerifier(upstream: configuration.upstream, client: verificationClient),
            cacheEnabled: configuration.cacheEnabled
        )
        let app = Application(
            router: makeRouter(bff, observability: observability, metrics: hubMetrics),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                // One line on stdout once the socket listens (scripts read the port from it when PORT=0).
                let port = channel.localAddress?.port ?? configuration.port
                let cache = configuration.cacheEnabled ? "on" : "off"
                let fleet = hub.replicationStatistics == nil ? "off" : "redis"
                let line =
                    "HUMMINGBIRD_BFF_READY url=http://\(configuration.host):\(port) cache=\(cache) fleet=\(fleet)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger
        )
        // Services stop in reverse order: the server first (no new requests), then the hub.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: observability.service(for: hub, metrics: hubMetrics)), .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            await verificationClient.shutdown()
            throw error
        }
        await verificationClient.shutdown()
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
