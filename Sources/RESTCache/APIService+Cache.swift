import Foundation
import Synchronization

/// A decoded value found in the cache, with the entry it came from.
@usableFromInline
struct CachedValue<Value: Sendable>: Sendable {
    @usableFromInline var value: Value
    @usableFromInline var entry: CacheEntry
    /// The key the value is stored under (a `Vary` variant key differs from the request's key).
    @usableFromInline var key: String

    @inlinable
    init(value: Value, entry: CacheEntry, key: String) {
        self.value = value
        self.entry = entry
        self.key = key
    }

    @inlinable
    func staleness(at now: CacheInstant) -> Duration {
        guard let expiresAt = entry.expiresAt, now > expiresAt else { return .zero }
        return now.duration(since: expiresAt)
    }

    @inlinable
    func withSource(_ source: ResponseSource, now: CacheInstant) -> DataWithSource<Value> {
        DataWithSource(data: value, source: source, age: entry.age(at: now))
    }
}

@usableFromInline
enum CachedRead<Value: Sendable> {
    case fresh(CachedValue<Value>)
    case stale(CachedValue<Value>)
    case miss
}

extension CacheEntryMetadata {
    /// Keeps the entry past its expiry for as long as `policy` may serve it stale (never shorter than already
    /// asked).
    @usableFromInline
    mutating func keepStale(for policy: RESTCachePolicy) {
        let retention = policy.staleRetention
        if retention > staleRetention { staleRetention = retention }
    }
}

/// Stored at a request's key when the upstream's answer varies on request headers: the real entries live at
/// variant keys that add those headers' values.
@usableFromInline
struct VaryDescriptor: Sendable, Equatable {
    @usableFromInline var headerNames: [String]

    @usableFromInline
    init(headerNames: [String]) { self.headerNames = headerNames }

    @usableFromInline
    func variantKey(base: String, value: (String) -> String?) -> String {
        base + "\u{1E}vary:" + headerNames.map { "\($0)=\(value($0) ?? "")" }.joined(separator: "&")
    }
}

extension APIService {
    /// The cached answer of a read, following a `Vary` descriptor to the variant of this request.
    @inlinable
    func read<T: RequestType>(_ request: T, at placement: RequestPlan.CachePlacement) -> CachedRead<T.Response> {
        var key = placement.key
        if shared.hasVaryingEntries.load(ordering: .relaxed),
            case .fresh(let entry) = cache.peek(key, in: placement.scope),
            let descriptor = entry.value as? VaryDescriptor
        {
            key = variantKey(descriptor, base: key, of: request, shared: placement.isShared)
        }
        switch cache.lookup(key, in: placement.scope) {
        case .fresh(let entry):
            guard let value = entry.value as? T.Response else { return .miss }
            return .fresh(CachedValue(value: value, entry: entry, key: key))
        case .stale(let entry):
            guard let value = entry.value as? T.Response else { return .miss }
            return .stale(CachedValue(value: value, entry: entry, key: key))
        case .miss:
            return .miss
        }
    }

    /// The key of the variant of a varying answer this request gets: the values it sends for the headers the answer
    /// varies on. With a request decorator on the transport, the headers as the decorator leaves them (it may set
    /// one from the caller's context); without, the cheaper ``sentHeaderValue(_:of:credentialHeaders:)``.
    @usableFromInline
    func variantKey<T: RequestType>(
        _ descriptor: VaryDescriptor, base: String, of request: T, shared: Bool
    ) -> String {
        let credentialHeaders = shared ? nil : binding.credentialHeaders
        guard client.configuration.requestDecorator != nil else {
            return descriptor.variantKey(base: base) {
                sentHeaderValue($0, of: request, credentialHeaders: credentialHeaders)
            }
        }
        var headers = configuration.defaultHeaders
        for field in credentialHeaders ?? [:] { headers.replaceOrAdd(name: field.name, value: field.value) }
        for field in request.headers { headers.replaceOrAdd(name: field.name, value: field.value) }
        let sent = client.sentHeaders(of: CurlHTTPClient.Request(url: baseURL + request.path, headers: headers))
        return descriptor.variantKey(base: base) { name in
            let values = sent.values(for: name)
            return values.isEmpty ? nil : values.joined(separator: ",")
        }
    }

    /// Whether a shared answer varies on a credential (a standard one, a configured one, or one the session's
    /// credentials set): it depends on who asks, and is not stored in the shared scope.
    func variesOnCredential(_ names: [String]) -> Bool {
        let credentials = credentials
        return names.contains {
            $0 == "*" || credentials.isCredentialHeader($0, extra: configuration.credentialHeaderNames)
        }
    }

    /// The value a request sends for a header: its own, else the session's credential headers (none for a shared
    /// request), else the defaults.
    @usableFromInline
    func sentHeaderValue<T: RequestType>(
        _ name: String, of request: T, credentialHeaders: CurlHTTPClient.Headers?
    ) -> String? {
        request.headers[name] ?? credentialHeaders?[name] ?? configuration.defaultHeaders[name]
    }

    /// Stores a network answer in memory. Returns the metadata it was stored with when it may also go to the
    /// second level: stored, and not one of the variants of an answer with `Vary` (kept in memory only). A closed
    /// service stores nothing: the answer in flight at ``close()`` is delivered only.
    @discardableResult
    func store<T: RequestType>(
        _ value: T.Response,
        response: CurlHTTPClient.Response,
        semantics: HTTPCachingSemantics,
        request: T,
        placement: RequestPlan.CachePlacement,
        _ generation: CacheGeneration
    ) -> CacheEntryMetadata? {
        if isClosed { return nil }
        var metadata = RequestPlan.metadata(for: request, placement: placement)
        if let policy = configuration.storagePolicy {
            guard let decided = policy(placement.key, metadata, response) else { return nil }
            metadata = decided
        }
        if configuration.honorsHTTPCaching {
            metadata.timeout = semantics.cap(
                metadata.timeout, default: cache.defaultTimeout, shared: placement.isShared)
            metadata.validators = semantics.validators
        }
        metadata.timeout = configuration.jitter.applied(to: metadata.timeout, default: cache.defaultTimeout)
        // Whatever the storage policy decided, the entry is kept for as long as this request's policy may serve it.
        metadata.keepStale(for: request.cachePolicy)
        // And for as long as its fail-safe window may serve it.
        if case .success(let options)? = resilience(for: request, placement: placement),
            options.staleRetention > metadata.staleRetention
        {
            metadata.staleRetention = options.staleRetention
        }
        var key = placement.key
        let varies = semantics.vary != nil
        if placement.isShared, let names = semantics.vary, variesOnCredential(names) { return nil }
        if let names = semantics.vary {
            shared.hasVaryingEntries.store(true, ordering: .relaxed)
            let descriptor = VaryDescriptor(headerNames: names)
            var descriptorMetadata = metadata
            descriptorMetadata.timeout = .never
            descriptorMetadata.validators = CacheValidators()
            cache.store(
                descriptor,
                byteCost: names.joined().utf8.count,
                key: key,
                in: placement.scope,
                metadata: descriptorMetadata,
                ifGeneration: generation
            )
            key = variantKey(descriptor, base: key, of: request, shared: placement.isShared)
        }
        let outcome = cache.store(
            value,
            byteCost: response.body.count,
            key: key,
            in: placement.scope,
            metadata: metadata,
            ifGeneration: generation
        )
        return outcome.isStored && !varies ? metadata : nil
    }

    /// Freshens a revalidated entry with what the 304 says (RFC 9111 §4.3.4: the stored headers are updated by
    /// those the 304 carries). A 304 with `Cache-Control: max-age` or `Expires` sets the entry's lifetime anew,
    /// capped by the timeout the request asks for (after the storage policy, as for a 200); without them the
    /// entry keeps its lifetime (`restoredTimeout`, when the entry came from the second level and was put in memory
    /// stale). Its `ETag` and `Last-Modified` replace the stored ones; absent ones are kept. Returns the refreshed
    /// entry; nil, with nothing changed, once the service is closed.
    @discardableResult
    func refresh<T: RequestType>(
        _ stale: CachedValue<T.Response>,
        notModified response: CurlHTTPClient.Response,
        semantics: HTTPCachingSemantics,
        request: T,
        placement: RequestPlan.CachePlacement,
        _ generation: CacheGeneration,
        restoredTimeout: Timeout? = nil
    ) -> CacheEntry? {
        if isClosed { return nil }
        var timeout: Timeout? = restoredTimeout
        if semantics.freshnessLifetime(shared: placement.isShared) != nil {
            var requested = RequestPlan.metadata(for: request, placement: placement)
            if let policy = configuration.storagePolicy {
                guard let decided = policy(placement.key, requested, response) else {
                    // The settings say this is no longer cached at all.
                    cache.remove(key: stale.key, in: placement.scope)
                    return nil
                }
                requested = decided
            }
            timeout = configuration.jitter.applied(
                to: semantics.cap(requested.timeout, default: cache.defaultTimeout, shared: placement.isShared),
                default: cache.defaultTimeout)
        }
        let stored = stale.entry.metadata.validators
        let validators = CacheValidators(
            etag: semantics.validators.etag ?? stored.etag,
            lastModified: semantics.validators.lastModified ?? stored.lastModified
        )
        let outcome = cache.refresh(
            key: stale.key,
            in: placement.scope,
            timeout: timeout,
            validators: validators,
            ifGeneration: generation
        )
        if case .refreshed(let entry) = outcome { return entry }
        return nil
    }

    /// Decodes a success body as the request's `Response`, or an error status as `API.http`.
    func decode<T: RequestType>(_ response: CurlHTTPClient.Response, as request: T) -> Result<
        T.Response, API<T.ErrorBody>
    > {
        guard (200..<300).contains(response.status) else {
            let body =
                response.body.isEmpty
                ? nil : try? JSONFastDecoder.decode(T.ErrorBody.self, from: response.body, as: configuration.decoder)
            return .failure(.http(status: response.status, body: body))
        }
        return decodeBody(response.body, as: request)
    }

    /// Decodes a success body (from the upstream or the second level) as the request's `Response`.
    @inlinable
    func decodeBody<T: RequestType>(_ body: Data, as request: T) -> Result<T.Response, API<T.ErrorBody>> {
        if let data = body as? T.Response { return .success(data) }
        if T.Response.self == EmptyResponse.self, let empty = EmptyResponse() as? T.Response { return .success(empty) }
        do {
            return .success(try JSONFastDecoder.decode(T.Response.self, from: body, as: configuration.decoder))
        } catch {
            let message = "The response to \(request.method) \(request.path) is not a valid \(T.Response.self)."
            return .failure(.decoding(RESTCacheError(.decodingFailed, message, underlying: error)))
        }
    }

    /// A successful mutation invalidates what the rules name, and the entries of its own path and parent. Returns
    /// the targets invalidated (for the second level).
    @discardableResult
    func invalidateAfterMutation(method: CurlHTTPClient.Method, path: String) -> [InvalidationTarget] {
        let scope = cache.scope
        var targets: [InvalidationTarget] = []
        for rule in configuration.invalidationRules where rule.pattern.matches(method: method.rawValue, path: path) {
            targets.append(contentsOf: rule.targets)
        }
        if configuration.invalidatesOwnPath {
            targets.append(.path(path))
            if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
                targets.append(.path(String(path[..<slash])))
            }
        }
        for target in targets { cache.invalidate(target, in: scope) }
        return targets
    }
}
