import CurlHTTP
import Foundation

/// One isolated bank on the fixture server: its own state, counters, faults and latency.
public struct FixtureTenant: Sendable {
    public let server: FixtureServer
    public let id: String

    /// The tenant's root: REST routes are under `\(baseURL)/api`, GraphQL at `\(baseURL)/graphql`.
    public var baseURL: String { "\(server.baseURL)/t/\(id)" }
    public var graphqlURL: String { "\(baseURL)/graphql" }

    /// An absolute URL for a path such as `/api/accounts`.
    public func url(_ path: String) -> String { "\(baseURL)\(path)" }

    /// Bearer tokens of the seeded users.
    public enum User: String, Sendable, CaseIterable {
        case alice, bob, carol, bench
        public var token: String { "token-\(rawValue)" }
        public var authorization: String { "Bearer \(token)" }
    }

    // MARK: Control API

    /// The tenant's request counters.
    public func counters() async throws -> FixtureCounters {
        let response = try await control(.get, "/__control/counters")
        return try JSONDecoder().decode(FixtureCounters.self, from: response.body)
    }

    /// Resets state, counters, faults and latency; `countersOnly` keeps the bank state.
    public func reset(countersOnly: Bool = false) async throws {
        _ = try await control(.post, countersOnly ? "/__control/reset?counters=only" : "/__control/reset")
    }

    /// Makes the next `count` requests matching `route` (glob over "METHOD /path") or `operation` fail.
    public func inject(
        _ fault: FixtureFault,
        route: String? = nil,
        operation: String? = nil,
        count: Int = 1
    ) async throws {
        var object: [String: Any] = ["fault": fault.json, "count": count]
        if let route { object["route"] = route }
        if let operation { object["operation"] = operation }
        _ = try await control(.post, "/__control/faults", json: object)
    }

    /// Delays every matching request by `milliseconds` (0 clears). With `answerFirst`, the answer is computed when
    /// the request arrives and sent after the delay: it shows the state before any change made meanwhile.
    public func setLatency(
        milliseconds: Int,
        route: String? = nil,
        operation: String? = nil,
        answerFirst: Bool = false
    ) async throws {
        // Latency keeps a call in flight while a test acts; under a sanitizer the test acts more slowly.
        var object: [String: Any] = ["ms": TestTiming.milliseconds(milliseconds), "answerFirst": answerFirst]
        if let route { object["route"] = route }
        if let operation { object["operation"] = operation }
        _ = try await control(.post, "/__control/latency", json: object)
    }

    /// Holds every matching request's answer until ``releaseHeldAnswers()`` (10 s at most, scaled under the sanitizers):
    /// a test acts while a call is surely in flight, however slowly the test itself runs, then lets the answer go. A
    /// fixed latency instead races the test: under load, polling for the call's arrival can outlast it. With
    /// `answerFirst`, each answer is computed when its request arrives (the state it saw), then held.
    public func holdAnswers(route: String? = nil, operation: String? = nil, answerFirst: Bool = false) async throws {
        var object: [String: Any] = ["ms": TestTiming.milliseconds(10_000), "held": true, "answerFirst": answerFirst]
        if let route { object["route"] = route }
        if let operation { object["operation"] = operation }
        _ = try await control(.post, "/__control/latency", json: object)
    }

    /// Lets every answer held by ``holdAnswers(route:operation:)`` go and removes the holds: later requests are
    /// answered at once.
    public func releaseHeldAnswers() async throws {
        _ = try await control(.post, "/__control/release")
    }

    private func control(
        _ method: CurlHTTPClient.Method,
        _ path: String,
        json: [String: Any]? = nil
    ) async throws -> CurlHTTPClient.Response {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        let request = CurlHTTPClient.Request(
            method: method,
            url: url(path),
            headers: body == nil ? [:] : ["Content-Type": "application/json"],
            body: body
        )
        let response = try await server.controlClient.execute(request)
        guard response.isSuccess else {
            throw FixtureError(
                "control \(method) \(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))"
            )
        }
        return response
    }
}

/// The fixture's counters for one tenant.
public struct FixtureCounters: Decodable, Sendable {
    public var requests: Int
    public var routes: [String: Int]
    public var operations: [String: Int]
    public var statuses: [String: Int]
    public var connections: Int
    /// Bearer tokens each route (`"GET /api/accounts"`) and operation (`"op:AccountSummary"`) was called with,
    /// with counts; `"none"` for requests without one.
    public var callers: [String: [String: Int]]

    /// The tokens a route or operation was called with (`"GET /api/accounts"`, `"op:AccountSummary"`).
    public func tokens(_ key: String) -> [String: Int] { callers[key] ?? [:] }
    /// Requests seen for `"METHOD /path"`, zero if none.
    public func route(_ key: String) -> Int { routes[key] ?? 0 }
    /// GraphQL requests seen for an operation name.
    public func operation(_ name: String) -> Int { operations[name] ?? 0 }
}

/// The faults the fixture server can inject.
public enum FixtureFault: Sendable {
    case status(Int)
    case delay(milliseconds: Int)
    case drop
    /// Like `drop`, but only for a request that is not the first on its keep-alive connection.
    case dropReused
    case truncate
    case malformed
    case oversize(bytes: Int)
    case oversizeChunked(bytes: Int)
    case drip(bytes: Int, intervalMilliseconds: Int, chunk: Int)
    case reset

    var json: [String: Any] {
        switch self {
        case .status(let status): return ["type": "status", "status": status]
        case .delay(let ms): return ["type": "delay", "ms": ms]
        case .drop: return ["type": "drop"]
        case .dropReused: return ["type": "drop-reused"]
        case .truncate: return ["type": "truncate"]
        case .malformed: return ["type": "malformed"]
        case .oversize(let bytes): return ["type": "oversize", "bytes": bytes]
        case .oversizeChunked(let bytes): return ["type": "oversize-chunked", "bytes": bytes]
        case .drip(let bytes, let interval, let chunk):
            return ["type": "drip", "bytes": bytes, "interval_ms": interval, "chunk": chunk]
        case .reset: return ["type": "reset"]
        }
    }
}
