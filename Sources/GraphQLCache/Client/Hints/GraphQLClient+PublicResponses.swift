import CacheCore
import GraphQLLanguage

extension GraphQLClient {
    /// The identity of a query's answer among every session's: what was asked and of whom, never who asked.
    func publicResponseKey(_ request: PreparedRequest) -> PublicResponseCache.Key {
        PublicResponseCache.Key(
            url: url, headers: shared.publicResponseHeaders, documentHash: request.document.sha256,
            variables: request.queryKey.canonicalVariables)
    }

    /// Keeps a stored answer for the other sessions when the upstream declared all of it `PUBLIC`.
    func sharePublicResponse(_ data: GraphQLJSONObject, of request: PreparedRequest, upstream: UpstreamCachePolicy) {
        guard upstream.isShareable(rootResponseKeys: data.keys), let maxAge = upstream.maxAge else {
            return
        }
        store.publicResponses.store(
            data, upstream: upstream, maxAge: maxAge, for: publicResponseKey(request), at: store.clock.now())
    }

    /// A cache-first miss: another session's `PUBLIC` answer to the same query, merged into this session's scope
    /// with its original write time and hints, when it is within its `maxAge` and the shortest lifetime this client's
    /// own rules give (so no local rule is outlived), and newer than this client's last timestamp clear and last
    /// mutation; `nil` to go on (second level, upstream).
    func servePublicResponse(
        _ request: PreparedRequest, generation: CacheGeneration, mutationsSeen: UInt64
    ) -> NetworkAnswer? {
        let now = store.clock.now()
        guard let entry = store.publicResponses.entry(publicResponseKey(request), at: now) else {
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
        return NetworkAnswer(data: entry.data, errors: [], extensions: nil, wasStored: stored, fromSecondLevel: true)
    }
}
