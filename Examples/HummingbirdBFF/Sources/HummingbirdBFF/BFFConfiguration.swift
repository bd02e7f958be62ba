import Foundation

/// What the BFF reads from its environment at start-up.
///
/// - `UCACHE_FIXTURE_URL` (or `UPSTREAM_URL`): the bank upstream, REST under `/api/`, GraphQL at `/graphql`.
/// - `PORT` (default 8080) and `HOST` (default 127.0.0.1): where the BFF listens.
/// - `BFF_CACHE=off`: every read bypasses the cache (REST `.networkOnly`, GraphQL `.fetchIgnoringCacheCompletely`),
///   the baseline `scripts/bench-bff.sh` compares against.
/// - `BFF_EXECUTOR=cooperative`: Swift tasks on the default cooperative pool instead of NIO's event loops (the
///   default, `eventloop`, runs them on the event loop threads: one pool of threads, no hop per request).
/// - `UCACHE_SETTINGS` and the `UCACHE_*` overrides: read by the library's `SettingsStore(environment:)`.
struct BFFConfiguration: Sendable {
    var upstream: String
    var host: String
    var port: Int
    var cacheEnabled: Bool
    var runsTasksOnEventLoops: Bool

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(environment: [String: String]) throws {
        guard let upstream = environment["UCACHE_FIXTURE_URL"] ?? environment["UPSTREAM_URL"], !upstream.isEmpty else {
            throw Invalid(description: "set UCACHE_FIXTURE_URL (or UPSTREAM_URL) to the bank upstream's base URL")
        }
        self.upstream = upstream.hasSuffix("/") ? String(upstream.dropLast()) : upstream
        host = environment["HOST"] ?? "127.0.0.1"
        let portText = environment["PORT"] ?? "8080"
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw Invalid(description: "PORT must be a port number, not \(portText)")
        }
        self.port = port
        switch environment["BFF_CACHE"]?.lowercased() ?? "on" {
        case "on": cacheEnabled = true
        case "off": cacheEnabled = false
        case let other: throw Invalid(description: "BFF_CACHE must be on or off, not \(other)")
        }
        switch environment["BFF_EXECUTOR"]?.lowercased() ?? "eventloop" {
        case "eventloop": runsTasksOnEventLoops = true
        case "cooperative": runsTasksOnEventLoops = false
        case let other: throw Invalid(description: "BFF_EXECUTOR must be eventloop or cooperative, not \(other)")
        }
    }
}
