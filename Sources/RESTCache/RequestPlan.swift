import Foundation

/// Everything decided about one request before any I/O: its URL, headers, body, and where (if anywhere) its
/// answer is cached.
@usableFromInline
struct RequestPlan: Sendable {
    /// Where a read's answer lives in the cache. Cheap to compute: the cache-hit path needs nothing else.
    @usableFromInline
    struct CachePlacement: Sendable {
        @usableFromInline var key: String
        @usableFromInline var scope: CacheScope
        /// The timeout and domains of a caching rule, when the request has no `Cacheable`.
        @usableFromInline var rule: CachingRule?
        @inlinable var isShared: Bool { scope == .shared }

        @inlinable
        init(key: String, scope: CacheScope, rule: CachingRule?) {
            self.key = key
            self.scope = scope
            self.rule = rule
        }
    }

    var httpRequest: CurlHTTPClient.Request
    var path: String
    var cache: CachePlacement?

    /// Builds the HTTP request for the network path (after a cache miss, or for uncached requests).
    init<T: RequestType>(
        _ request: T,
        placement: CachePlacement?,
        baseURL: String,
        credentials: APIService.Credentials,
        configuration: APIService.Configuration
    ) throws(RESTCacheError) {
        try Self.validate(path: request.path)
        path = request.path
        let query = Self.encode(request.queryItems)
        let url = baseURL + request.path + (query.isEmpty ? "" : "?" + query)

        var body: Data?
        if let requestBody = request.body {
            do {
                body = try configuration.encoder.encode(requestBody)
            } catch {
                throw RESTCacheError(
                    .encodingFailed, "The request body could not be encoded as JSON.", underlying: error)
            }
        }
        var headers = configuration.defaultHeaders
        if body != nil { headers.replaceOrAdd(name: "Content-Type", value: "application/json") }
        let isShared = placement?.isShared ?? false
        if !isShared {
            for field in credentials.headers { headers.replaceOrAdd(name: field.name, value: field.value) }
        }
        for field in request.headers { headers.replaceOrAdd(name: field.name, value: field.value) }

        httpRequest = CurlHTTPClient.Request(
            method: request.method,
            url: url,
            headers: headers,
            body: body,
            cookieJar: isShared ? nil : credentials.cookieJar
        )
        cache = placement
    }

    static func validate(path: String) throws(RESTCacheError) {
        guard path.hasPrefix("/") else {
            throw RESTCacheError(.invalidRequest, "The path must start with '/'.")
        }
        guard !path.contains(where: { $0 == "?" || $0 == "#" || $0.isWhitespace }) else {
            throw RESTCacheError(.invalidRequest, "The path must not contain '?', '#' or whitespace; use queryItems.")
        }
    }

    /// Where a GET's answer is cached, if anywhere; mutations are never cached.
    ///
    /// `sessionCredentials` (read only for a shared request with headers of its own) are the session's: a header
    /// they set is a credential when the request carries it.
    @inlinable
    static func placement<T: RequestType>(
        for request: T,
        sessionScope: CacheScope,
        configuration: APIService.Configuration,
        sessionCredentials: @autoclosure () -> UpstreamCredentials = .none
    ) -> CachePlacement? {
        guard request.method == .get else { return nil }
        if let cache = request.cache {
            // A request that carries credentials of its own is never stored where other sessions read.
            let shared =
                cache.isShared
                && !carriesCredentials(request.headers, configuration: configuration, session: sessionCredentials())
            return CachePlacement(key: cache.key, scope: shared ? .shared : sessionScope, rule: nil)
        }
        guard
            let rule = configuration.cachingRules.first(where: {
                $0.pattern.matches(method: "GET", path: request.path)
            }), rule.cache
        else { return nil }
        let query = canonicalQuery(request.queryItems)
        let key = "GET \(request.path)" + (query.isEmpty ? "" : "?\(query)")
        let shared =
            rule.isShared
            && !carriesCredentials(request.headers, configuration: configuration, session: sessionCredentials())
        return CachePlacement(key: key, scope: shared ? .shared : sessionScope, rule: rule)
    }

    /// The metadata stored with an answer: from the request's `Cacheable`, else from the caching rule.
    @usableFromInline
    static func metadata<T: RequestType>(for request: T, placement: CachePlacement) -> CacheEntryMetadata {
        if let cache = request.cache {
            return CacheEntryMetadata(
                timeout: cache.timeout,
                domains: cache.domains,
                accounts: cache.accountIds,
                isUplifted: cache.isUpliftedCache,
                entityKeys: cache.entityKeys,
                tags: [pathTag(request.path)]
            )
        }
        let rule = placement.rule
        return CacheEntryMetadata(
            timeout: rule?.timeout ?? .useDefault,
            domains: rule?.domains ?? [],
            tags: [pathTag(request.path)]
        )
    }

    /// The tag that lets a mutation of a path find the entries read from it.
    static func pathTag(_ path: String) -> String { "path:\(path)" }

    /// Whether a request's own headers carry a credential: a standard one, one of the configuration's
    /// ``APIService/Configuration/credentialHeaderNames``, or one the session's credentials set.
    @inlinable
    static func carriesCredentials(
        _ headers: CurlHTTPClient.Headers, configuration: APIService.Configuration,
        session: @autoclosure () -> UpstreamCredentials
    ) -> Bool {
        guard headers.count > 0 else { return false }
        let credentials = session()
        return headers.contains { credentials.isCredentialHeader($0.name, extra: configuration.credentialHeaderNames) }
    }

    /// RFC 3986 query encoding: only unreserved characters stay as they are.
    @usableFromInline
    static func encode(_ items: [QueryItem]) -> String {
        items.map { item in
            let name = percentEncode(item.name)
            guard let value = item.value else { return name }
            return "\(name)=\(percentEncode(value))"
        }.joined(separator: "&")
    }

    /// The query as a cache key sees it: encoded like the URL, with the items in a stable order (by encoded name,
    /// then value; an item without value first; repeated names kept), so `a=1&b=2` and `b=2&a=1` share one entry
    /// while different values still make different keys. The URL sent upstream keeps the caller's order.
    @usableFromInline
    static func canonicalQuery(_ items: [QueryItem]) -> String {
        guard items.count > 1 else { return encode(items) }
        let encoded = items.map { (name: percentEncode($0.name), value: $0.value.map(percentEncode)) }
        let ordered = encoded.sorted { lhs, rhs in
            if lhs.name != rhs.name { return lhs.name < rhs.name }
            switch (lhs.value, rhs.value) {
            case (nil, nil), (_, nil): return false
            case (nil, _): return true
            case (let left?, let right?): return left < right
            }
        }
        return ordered.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }.joined(separator: "&")
    }

    private static func percentEncode(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }
}
