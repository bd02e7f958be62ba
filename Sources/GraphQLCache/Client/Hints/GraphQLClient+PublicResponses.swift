import CacheCore
import CurlHTTP
import GraphQLLanguage

extension GraphQLClient {
    /// The identity of a query's answer among every session's: what was asked and of whom, never who asked.
    func publicResponseKey(_ request: PreparedRequest) -> PublicResponseCache.Key {
        PublicResponseCache.Key(
            url: url, headers: shared.publicResponseHeaders, documentHash: request.document.sha256,
            variables: request.queryKey.canonicalVariables)
    }

    /// The variant of an answer that varies on `names`: each with the value this session sends (its credentials over
    /// the configured headers, then the transport's request decorator), in name order; nil when one of them is a
    /// credential (a standard one, a configured ``Configuration/credentialHeaderNames`` one, or one the session's
    /// credentials set): such an answer depends on who asks and is never shared.
    func publicResponseVariant(varyingOn names: [String]) -> String? {
        let credentials = credentials
        var headers = configuration.headers
        for (name, value) in credentials.headers {
            headers.replaceOrAdd(name: name, value: value)
        }
        let sent = transport.sentHeaders(of: CurlHTTPClient.Request(url: url, headers: headers))
        var variant = ""
        for name in names {
            // A header the decorator sets from the caller's context can be a credential too.
            if name == "*" || credentials.isCredentialHeader(name, extra: configuration.credentialHeaderNames) {
                return nil
            }
            variant += name + "=" + sent.values(for: name).joined(separator: ",") + "\u{1E}"
        }
        return variant
    }

    /// Keeps a stored answer for the other sessions when the upstream declared all of it `PUBLIC`, under the values
    /// this session sent for every header its `Vary` names (not at all when one is a credential).
    func sharePublicResponse(_ data: GraphQLJSONObject, of request: PreparedRequest, upstream: UpstreamCachePolicy) {
        guard upstream.isShareable(rootResponseKeys: data.keys), let maxAge = upstream.maxAge else {
            return
        }
        var key = publicResponseKey(request)
        if !upstream.varyNames.isEmpty {
            guard let variant = publicResponseVariant(varyingOn: upstream.varyNames) else {
                return
            }
            key.vary = variant
        }
        store.publicResponses.store(
            data, upstream: upstream, maxAge: maxAge, for: key, varyNames: upstream.varyNames,
            at: store.clock.now())
    }

    /// A cache-first miss: another session's `PUBLIC` answer to the same query (and, when it varies, to the same
    /// values of the headers it varies on), merged into this session's scope with its original write time and hints,
    /// when it is within its `maxAge` and the shortest lifetime this client's own rules give (so no local rule is
    /// outlived), and newer than this client's last timestamp clear and last mutation; `nil` to go on (second level,
    /// upstream).
    func servePublicResponse(
        _ request: PreparedRequest, generation: CacheGeneration, mutationsSeen: UInt64
    ) -> NetworkAnswer? {
        let now = store.clock.now()
        var key = publicResponseKey(request)
        if let names = store.publicResponses.varyNames(for: key) {
            guard let variant = publicResponseVariant(varyingOn: names) else {
                return nil
            }
            key.vary = variant
        }
        guard let entry = store.publicResponses.entry(key, at: now) else {
            return nil
        }
        // Kept before this client's timestamps were cleared, or before its last mutation wrote: the session asked
        // for newer data than that.
        if let state = existingState {
            if let staleBefore = state.timestamps.staleBefore(for: request.queryKey), entry.storedAt <= staleBefore {
                return nil
            }
            if entry.storedAt.nanoseconds <= state.lastMutationWrite.load(ordering: .relaxed) {
                return nil
            }
        }
        if let lifetime = secondLevelLifetime(request),
            now.duration(since: entry.storedAt) > OutsideValue.clampedDuration(seconds: lifetime)
        {
            return nil
        }
        guard
            let stored = try? merge(
                entry.data, of: request, generation: generation, mutationsSeen: mutationsSeen,
                upstream: entry.upstream, writtenAt: entry.storedAt)
        else {
            return nil
        }
        store.publicResponses.countHit()
        return NetworkAnswer(data: entry.data, errors: [], extensions: nil, wasStored: stored, fromSecondLevel: true)
    }
}
