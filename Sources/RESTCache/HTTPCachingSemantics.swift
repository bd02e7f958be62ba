import Foundation

/// What an upstream's response headers say about caching it (RFC 9111, the parts a private BFF cache needs).
struct HTTPCachingSemantics: Equatable, Sendable {
    /// `no-store`: must not be stored at all.
    var noStore = false
    /// `private`: may be stored for the user, never in a shared scope.
    var isPrivate = false
    /// `no-cache`: may be stored but must be revalidated before each use.
    var noCache = false
    /// `max-age` (or `s-maxage` for the shared scope), in seconds.
    var maxAge: Int?
    var sharedMaxAge: Int?
    /// `Expires` minus `Date` (or minus now without `Date`), in seconds; 0 for an invalid `Expires` (RFC 9111
    /// §5.3: it is in the past). Used only when no `max-age` applies.
    var expiresLifetime: Int?
    /// Validators for conditional requests.
    var validators = CacheValidators()
    /// Request header names (lower-cased) the answer varies on; nil when absent; `["*"]` for `Vary: *`.
    var vary: [String]?

    init() {}

    init(headers: CurlHTTPClient.Headers) {
        for value in headers.values(for: "cache-control") {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                // A directive of "=" alone splits into nothing (the fuzzer's find): no name, nothing to honour.
                guard let first = parts.first else { continue }
                let name = first.trimmingCharacters(in: " \t").lowercased()
                let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: " \t\"") : nil
                switch name {
                case "no-store": noStore = true
                case "private": isPrivate = true
                case "no-cache": noCache = true
                case "max-age": maxAge = argument.flatMap { Int($0) }.map { max(0, $0) }
                case "s-maxage": sharedMaxAge = argument.flatMap { Int($0) }.map { max(0, $0) }
                default: break
                }
            }
        }
        if let expires = headers["expires"] {
            let date = headers["date"].flatMap(HTTPDate.secondsSince1970) ?? Int(Date().timeIntervalSince1970)
            expiresLifetime = HTTPDate.secondsSince1970(expires).map { max(0, $0 - date) } ?? 0
        }
        validators = CacheValidators(etag: headers["etag"], lastModified: headers["last-modified"])
        let varyNames = headers.values(for: "vary").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: " \t").lowercased() }.filter { !$0.isEmpty }
        vary = varyNames.isEmpty ? nil : (varyNames.contains("*") ? ["*"] : varyNames.sorted())
    }

    /// Whether the answer may be stored in the given kind of scope.
    func allowsStoring(shared: Bool) -> Bool {
        if noStore || vary == ["*"] { return false }
        if shared && isPrivate { return false }
        return true
    }

    /// The upstream's freshness lifetime in seconds (RFC 9111 §4.2.1): `no-cache` → 0, then `s-maxage` (shared
    /// scope only), `max-age`, `Expires`; nil when the headers set none.
    func freshnessLifetime(shared: Bool) -> Int? {
        if noCache { return 0 }
        return (shared ? sharedMaxAge : nil) ?? maxAge ?? expiresLifetime
    }

    /// The request's timeout capped by the upstream's freshness lifetime.
    func cap(_ timeout: Timeout, default resolvedDefault: Timeout, shared: Bool) -> Timeout {
        guard let upstream = freshnessLifetime(shared: shared) else { return timeout }
        let requested = timeout.resolved(default: resolvedDefault)
        switch requested {
        case .seconds(let seconds): return .seconds(min(seconds, Double(upstream)))
        case .never, .useDefault: return .seconds(Double(upstream))
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var view = self
        while let first = view.first, set.contains(first) { view.removeFirst() }
        while let last = view.last, set.contains(last) { view.removeLast() }
        return String(view)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        Substring(self).trimmingCharacters(in: set)
    }
}
