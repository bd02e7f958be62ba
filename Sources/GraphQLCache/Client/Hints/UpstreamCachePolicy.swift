import CacheCore
import CurlHTTP
import GraphQLLanguage

/// What an upstream said about caching one GraphQL answer: its HTTP `Cache-Control` and `Vary` headers and its
/// `extensions.cacheControl` hints (Apollo Server's format, written by the `@cacheControl` directive):
/// `{"version": 1, "hints": [{"path": ["accounts", 0, "balance"], "maxAge": 30, "scope": "PRIVATE"}]}`.
///
/// Everything here comes from outside: a hint with a wrong type, a negative or unrepresentable `maxAge`, a bad path
/// or an unknown scope is ignored (and counted in ``ignoredHints``), never trusted and never a trap. An ignored hint
/// still makes the answer unfit for sharing across sessions, since it may have meant to restrict it.
struct UpstreamCachePolicy: Sendable {
    /// `Cache-Control: no-store`: the answer is delivered and never stored.
    var isNoStore = false
    /// `Cache-Control: private`, or a hint with scope `PRIVATE`: the answer is the session's alone.
    var isPrivate = false
    /// `Cache-Control: public`.
    var headerSaysPublic = false
    /// `Cache-Control: max-age` (or `no-cache`, as 0), in seconds.
    var headerMaxAge: Double?
    /// `Vary` names the standard credentials (`Authorization`, `Cookie`, `Proxy-Authorization`) or `*`, or the
    /// answer sets a cookie: it depends on who asks, whatever its hints say.
    var dependsOnCaller = false
    /// Every request header `Vary` names, lowercased, sorted, once each: a shared copy is keyed by the values the
    /// session sends for them (or not shared when one is a credential of the session).
    var varyNames: [String] = []
    /// The usable `maxAge` hints by response path.
    var hints = CacheHintTree()
    /// Hints with a usable `maxAge`, and the smallest of them.
    var hintCount = 0
    var smallestHint: Double?
    /// Hints (or a `cacheControl` extension) ignored as malformed.
    var ignoredHints = 0

    /// No upstream statement at all: the answer is cached by local rules only.
    static let none = UpstreamCachePolicy()

    /// Reads the policy of an answer from its headers and its `extensions`.
    init(headers: CurlHTTPClient.Headers, extensions: GraphQLJSONObject?) {
        readHeaders(headers)
        if let cacheControl = extensions?["cacheControl"] {
            readHints(cacheControl)
        }
    }

    private init() {}

    /// What an answer read from the second level still says: the lifetime the replica that stored it gave it (the
    /// upstream's `maxAge` bounded by that replica's rules), as a bound on every field it writes, so a merged copy
    /// ends when the original would instead of living by the local rules from the read on.
    static func secondLevel(lifetime seconds: Double) -> UpstreamCachePolicy {
        var policy = UpstreamCachePolicy()
        policy.headerMaxAge = usableSeconds(max(0, seconds)) ?? OutsideValue.longestSeconds
        return policy
    }

    /// Whether any statement bounds the freshness of the fields the answer writes.
    var boundsFreshness: Bool {
        headerMaxAge != nil || hintCount > 0
    }

    /// The response's policy: the smallest `maxAge` of the header and every hint; `nil` when none gives one.
    var maxAge: Double? {
        switch (headerMaxAge, smallestHint) {
        case (let header?, let hint?): min(header, hint)
        case (let header?, nil): header
        case (nil, let hint?): hint
        case (nil, nil): nil
        }
    }

    /// Whether the answer may be served to other sessions (when the client opts in): stored at all, `PUBLIC` in
    /// every part (no private header, no `PRIVATE` or malformed hint, not dependent on the caller), declared
    /// cacheable for a positive time, and, when it carries hints, with one on every root field it answers (a
    /// root field without a hint has an unknown policy, which Apollo Server takes as not cacheable).
    func isShareable(rootResponseKeys: [String]) -> Bool {
        guard !isNoStore, !isPrivate, !dependsOnCaller, ignoredHints == 0, let maxAge, maxAge > 0 else {
            return false
        }
        if hintCount == 0 {
            return headerSaysPublic
        }
        return rootResponseKeys.allSatisfy { $0 == "__typename" || hints.hasHint(at: [.key($0)]) }
    }

    // MARK: - Headers

    private mutating func readHeaders(_ headers: CurlHTTPClient.Headers) {
        for value in headers.values(for: "cache-control") {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                guard let first = parts.first else {
                    continue
                }
                let name = Self.trimmed(first).lowercased()
                let argument = parts.count > 1 ? Self.trimmed(parts[1]) : nil
                switch name {
                case "no-store": isNoStore = true
                case "private": isPrivate = true
                case "public": headerSaysPublic = true
                case "no-cache": headerMaxAge = 0
                case "max-age":
                    // Not a number, negative or beyond what the caches represent: ignored.
                    if let seconds = argument.flatMap(Double.init).flatMap(Self.usableSeconds) {
                        headerMaxAge = min(headerMaxAge ?? seconds, seconds)
                    }
                default: break
                }
            }
        }
        var names: Set<String> = []
        for value in headers.values(for: "vary") {
            for name in value.split(separator: ",").map({ Self.trimmed($0).lowercased() }) where !name.isEmpty {
                names.insert(name)
                if name == "*" || UpstreamCredentials.isCredentialHeader(name, extra: []) {
                    dependsOnCaller = true
                }
            }
        }
        varyNames = names.sorted()
        if headers.contains("set-cookie") {
            dependsOnCaller = true
        }
    }

    private static func trimmed(_ text: Substring) -> String {
        let padding: Set<Character> = [" ", "\t", "\""]
        var view = text
        while let first = view.first, padding.contains(first) {
            view.removeFirst()
        }
        while let last = view.last, padding.contains(last) {
            view.removeLast()
        }
        return String(view)
    }

    // MARK: - Hints

    private mutating func readHints(_ cacheControl: GraphQLJSON) {
        guard let object = cacheControl.objectValue, case .int(1)? = object["version"],
            let hintList = object["hints"]?.arrayValue
        else {
            ignoredHints += 1
            return
        }
        for hint in hintList {
            guard let hint = hint.objectValue, let path = Self.path(hint["path"]) else {
                ignoredHints += 1
                continue
            }
            switch hint["scope"] {
            case nil, .null?, .string("PUBLIC")?: break
            case .string("PRIVATE")?: isPrivate = true
            default:
                // An unknown scope may have meant a restriction: never shared, and counted.
                ignoredHints += 1
                continue
            }
            switch hint["maxAge"] {
            case nil, .null?:
                continue  // a scope alone
            case let value?:
                guard let seconds = value.doubleValue.flatMap(Self.usableSeconds) else {
                    ignoredHints += 1
                    continue
                }
                hints.add(path: path, maxAge: seconds)
                hintCount += 1
                smallestHint = min(smallestHint ?? seconds, seconds)
            }
        }
    }

    /// A hint's path: response keys and non-negative list indices; `nil` when it is anything else.
    private static func path(_ json: GraphQLJSON?) -> [CacheHintTree.Step]? {
        guard let elements = json?.arrayValue else {
            return nil
        }
        var path: [CacheHintTree.Step] = []
        path.reserveCapacity(elements.count)
        for element in elements {
            switch element {
            case .string(let key): path.append(.key(key))
            case .int(let index):
                guard let index = OutsideValue.count(index, atMost: Int(Int32.max)) else {
                    return nil
                }
                path.append(.index(index))
            default: return nil
            }
        }
        return path
    }

    /// A `maxAge` the caches can use: finite, not negative, at most ``OutsideValue/longestSeconds``.
    private static func usableSeconds(_ seconds: Double) -> Double? {
        guard seconds.isFinite, seconds >= 0, seconds <= OutsideValue.longestSeconds else {
            return nil
        }
        return seconds + 0
    }
}
