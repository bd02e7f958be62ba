import Foundation

/// What the BFF reads from its environment at start-up (the fleet's variables are in `Fleet.swift`, the
/// observability's in `Observability.swift`).
///
/// - `UCACHE_FIXTURE_URL` (or `UPSTREAM_URL`): the bank upstream, REST under `/api/`, GraphQL at `/graphql`.
/// - `PORT` (default 8080) and `HOST` (default 127.0.0.1): where the BFF listens.
/// - `BFF_CACHE=off`: every read bypasses the cache (REST `.networkOnly`, GraphQL `.fetchIgnoringCacheCompletely`),
///   the baseline `scripts/bench-bff.sh` compares against.
/// - `BFF_FLOOR_BODY_FILE`: `GET /dashboard` answers this file's bytes, with no cache, token or upstream: the floor
///   `scripts/bench-bff.sh` measures the cached dashboard against.
/// - `BFF_DASHBOARD_MEMO_SECONDS` (default 5; 0 turns it off): how long a session's composed dashboard is answered
///   again without reading its inputs, unless a clear, a payment or logout drops it first (`DashboardMemo.swift`).
/// - `BFF_EXECUTOR=eventloop`: Swift tasks on NIO's event loop threads instead of the cooperative pool (the
///   default: its p99 was lower on 2 shared cores; see the README's "Tuned for a cached dashboard").
/// - `UCACHE_SETTINGS` and the `UCACHE_*` overrides: read by the library's `SettingsStore(environment:)`.
struct BFFConfiguration: Sendable {
    var upstream: String
    var host: String
    var port: Int
    var cacheEnabled: Bool
    var floorBody: [UInt8]?
    var runsTasksOnEventLoops: Bool
    /// How long a composed dashboard is kept; nil when off.
    var dashboardMemo: Duration?

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
        cacheEnabled = try Self.choice(environment, "BFF_CACHE", ["on": true, "off": false], default: "on")
        runsTasksOnEventLoops = try Self.choice(
            environment, "BFF_EXECUTOR", ["eventloop": true, "cooperative": false], default: "cooperative")
        let memoText = environment["BFF_DASHBOARD_MEMO_SECONDS"] ?? "5"
        guard let memoSeconds = Double(memoText), memoSeconds.isFinite, memoSeconds >= 0 else {
            throw Invalid(description: "BFF_DASHBOARD_MEMO_SECONDS must be a number of seconds ≥ 0, not \(memoText)")
        }
        dashboardMemo = memoSeconds > 0 ? .milliseconds(Int64(memoSeconds * 1000)) : nil
        if let path = environment["BFF_FLOOR_BODY_FILE"], !path.isEmpty {
            guard let body = FileManager.default.contents(atPath: path) else {
                throw Invalid(description: "BFF_FLOOR_BODY_FILE names no readable file: \(path)")
            }
            floorBody = Array(body)
        }
    }

    private static func choice(
        _ environment: [String: String], _ name: String, _ values: [String: Bool], default: String
    ) throws -> Bool {
        let text = environment[name]?.lowercased() ?? `default`
        guard let value = values[text] else {
            throw Invalid(description: "\(name) must be \(values.keys.sorted().joined(separator: " or ")), not \(text)")
        }
        return value
    }
}
