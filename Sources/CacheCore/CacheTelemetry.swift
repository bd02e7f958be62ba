/// The attribute names ``CacheOperationAttributes/namedValues`` uses: OpenTelemetry's semantic conventions where
/// they name the thing (HTTP client, database client, GraphQL, errors), and the library's own under `ucache.`.
///
/// Constants, so integrations and tests spell each name once; the values of the `ucache.*` ones are
/// ``CacheOutcome`` and ``CacheTier`` raw values, part names and snake_case reasons.
public enum CacheAttributeName {
    /// The HTTP method (OpenTelemetry `http.request.method`).
    public static let httpRequestMethod = "http.request.method"
    /// The HTTP status, an integer (OpenTelemetry `http.response.status_code`).
    public static let httpResponseStatusCode = "http.response.status_code"
    /// The route template, never the raw path (OpenTelemetry `url.template`).
    public static let urlTemplate = "url.template"
    /// The host an operation talked to (OpenTelemetry `server.address`).
    public static let serverAddress = "server.address"
    /// The port an operation talked to, an integer (OpenTelemetry `server.port`).
    public static let serverPort = "server.port"
    /// The store's kind (OpenTelemetry `db.system.name`), `redis` for the Redis module's stores.
    public static let databaseSystem = "db.system.name"
    /// The store's command (OpenTelemetry `db.operation.name`).
    public static let databaseOperation = "db.operation.name"
    /// The failure's code, or an HTTP status of 400 or more (OpenTelemetry `error.type`).
    public static let errorType = "error.type"
    /// The GraphQL operation's name (OpenTelemetry `graphql.operation.name`).
    public static let graphQLOperationName = "graphql.operation.name"
    /// `query` or `mutation` (OpenTelemetry `graphql.operation.type`).
    public static let graphQLOperationType = "graphql.operation.type"
    /// `hit`, `stale`, `miss` or `bypass` (``CacheOutcome``).
    public static let outcome = "ucache.outcome"
    /// `l1`, `l2` or `upstream` (``CacheTier``).
    public static let tier = "ucache.tier"
    /// `rest` or `graphql`.
    public static let part = "ucache.part"
    /// Why a session ended or what kind of clear was published.
    public static let reason = "ucache.reason"
}

/// What the cache had for a read.
public enum CacheOutcome: String, Hashable, Sendable, CaseIterable {
    /// A fresh entry answered.
    case hit
    /// An expired entry answered (stale-while-revalidate, stale-if-error) or was revalidated upstream.
    case stale
    /// Nothing usable: the upstream answered.
    case miss
    /// Not cached at all (a mutation, an uncached request, the no-cache policy).
    case bypass
}

/// Where an answer came from.
public enum CacheTier: String, Hashable, Sendable, CaseIterable {
    /// The replica's memory.
    case l1
    /// The fleet's shared second level.
    case l2
    /// The upstream service.
    case upstream
}

/// A read answered from a cache, reported through ``CacheInstrumentation/cacheDidServe(_:)``: small enums,
/// so reporting one allocates nothing.
public struct CacheHit: Hashable, Sendable {
    /// The part of the cache that answered.
    public enum Part: String, Hashable, Sendable, CaseIterable {
        case rest
        case graphql
    }

    public var part: Part
    /// ``CacheTier/l1`` or ``CacheTier/l2``.
    public var tier: CacheTier
    /// ``CacheOutcome/hit`` or ``CacheOutcome/stale``.
    public var outcome: CacheOutcome
    /// Which resilience option decided this answer, when one did: ``CacheStaleReason/failSafe`` and
    /// ``CacheStaleReason/softTimeout`` with a ``CacheOutcome/stale`` outcome, ``CacheStaleReason/eagerRefresh``
    /// with a ``CacheOutcome/hit`` (the entry was fresh; a refresh started). Nil for an ordinary hit.
    public var staleReason: CacheStaleReason?

    public init(part: Part, tier: CacheTier, outcome: CacheOutcome, staleReason: CacheStaleReason? = nil) {
        self.part = part
        self.tier = tier
        self.outcome = outcome
        self.staleReason = staleReason
    }
}

/// What a store or a bus can say about itself for telemetry (OpenTelemetry's `db.*` and `server.*` attributes).
/// Nothing secret: no password, no key prefix.
public struct CacheBackendDescription: Hashable, Sendable {
    /// `db.system.name`: `redis` for the Redis module's stores; nil when the store does not say.
    public var system: String?
    /// `db.operation.name`: the command of the instrumented operation (a second-level read, a bus publish).
    public var operationName: String?
    /// The host the store connects to (the first seed node of a cluster).
    public var serverAddress: String?
    /// The port the store connects to.
    public var serverPort: Int?

    public init(
        system: String? = nil, operationName: String? = nil, serverAddress: String? = nil, serverPort: Int? = nil
    ) {
        self.system = system
        self.operationName = operationName
        self.serverAddress = serverAddress
        self.serverPort = serverPort
    }

    /// A store that says nothing about itself: no `db.*` or `server.*` attribute is set.
    public static let unknown = CacheBackendDescription()
}

/// The host and port of a URL, as OpenTelemetry's `server.address` and `server.port` want them: the port is the
/// scheme's default (80, 443) when the URL names none. Never the user information, path or query.
public struct CacheServerAddress: Hashable, Sendable {
    public var host: String
    public var port: Int?
    /// The URL's path (without query or fragment), `/` when it has none.
    public var path: String

    public init(host: String, port: Int?, path: String = "/") {
        self.host = host
        self.port = port
        self.path = path
    }

    /// The address of `url` (`scheme://[user@]host[:port][/path][?query]`); nil when it has no host.
    public init?(url: String) {
        let text = Substring(url)
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        var rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port: Int?
        if authority.first == "[", let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.first == ":" { port = Int(after.dropFirst()) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = Int(authority[authority.index(after: colon)...])
        }
        guard !host.isEmpty else { return nil }
        if port == nil {
            switch scheme {
            case "http", "ws": port = 80
            case "https", "wss": port = 443
            default: break
            }
        }
        let pathEnd = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        let path = rest[..<pathEnd]
        self.init(host: String(host).lowercased(), port: port, path: path.isEmpty ? "/" : String(path))
    }
}

/// Label and attribute values in snake_case (`sessionExpired` → `session_expired`), as Prometheus and
/// OpenTelemetry spell them; the library's reasons and kinds are camelCase in code.
public enum CacheLabelCase {
    /// `value` with every upper-case ASCII letter lowered and preceded by `_` (none at the start).
    public static func snake(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return value }
        var result = ""
        result.reserveCapacity(value.utf8.count + 4)
        for character in value {
            if character.isASCII, character.isUppercase {
                if !result.isEmpty { result.append("_") }
                result.append(Character(character.lowercased()))
            } else {
                result.append(character)
            }
        }
        return result
    }
}
