import CacheCore
import CurlHTTP
import Foundation
import GraphQLLanguage
import Synchronization

/// What one upstream exchange produced, shared by every caller that joined it.
struct NetworkAnswer: Sendable {
    var data: GraphQLJSONObject
    var errors: [GraphQLResponseError]
    var extensions: GraphQLJSONObject?
    var wasStored: Bool
    /// Taken from the second level (and merged into the store as a network answer would be): a cache hit.
    var fromSecondLevel = false
}

typealias NetworkOutcome = Result<NetworkAnswer, GraphQLCacheError>

/// Identical queries of one scope: the same prepared document, the same canonical variables, stored or not.
struct FlightKey: Hashable, Sendable {
    let scope: CacheScope
    let documentID: Int
    let variables: String
    let storing: Bool
}

extension GraphQLClient {
    /// The key identical queries of this client share their upstream call under.
    func flightKey(_ request: PreparedRequest, storing: Bool) -> FlightKey {
        FlightKey(
            scope: scope,
            documentID: request.document.id,
            variables: request.queryKey.canonicalVariables,
            storing: storing
        )
    }

    /// One upstream exchange for every concurrent identical query of this client that may share it: a query
    /// joins an exchange only if the scope was not cleared (and no mutation succeeded) since it left, and only
    /// when `joining` allows it (network-only policies start their own).
    ///
    /// With a `failSafeThrottle`, a failure that allows fail-safe throttles the query for that long (a call while
    /// it is throttled does not ask the upstream) and an answer ends its throttle. Only a caller that
    /// `acceptsThrottled` (it holds an answer to serve instead) gets such a throttled call's failure; any other
    /// asks the upstream with a call of its own.
    func networkAnswer(
        _ request: PreparedRequest,
        storing: Bool,
        joining: InFlightCalls<FlightKey, NetworkOutcome>.Joining,
        readingSecondLevel: Bool = false,
        failSafeThrottle: Duration? = nil,
        acceptsThrottled: Bool = false
    ) async -> NetworkOutcome {
        let outcome = await networkAnswer(
            request, storing: storing, joining: joining, readingSecondLevel: readingSecondLevel,
            failSafeThrottle: failSafeThrottle, acceptsThrottled: acceptsThrottled, waitingAtMost: nil)
        guard case .answered(let answer) = outcome else { return .failure(.cancelledError()) }
        return answer
    }

    /// ``networkAnswer(_:storing:joining:readingSecondLevel:failSafeThrottle:acceptsThrottled:)``, the caller
    /// waiting at most `timeout` for the upstream. The flight's leader reads the shared public answers and the second
    /// level first, in its own task (bounded by the read deadline, not by `timeout`): such a hit starts no task and
    /// no timeout race. Only the upstream exchange runs in a task of its own, which goes on past the timeout.
    func networkAnswer(
        _ request: PreparedRequest,
        storing: Bool,
        joining: InFlightCalls<FlightKey, NetworkOutcome>.Joining,
        readingSecondLevel: Bool,
        failSafeThrottle: Duration?,
        acceptsThrottled: Bool,
        waitingAtMost timeout: Duration?
    ) async -> CacheRaceOutcome<NetworkOutcome> {
        let key = flightKey(request, storing: storing)
        let generation = store.generation(of: scope)
        let mutationsSeen = existingState?.landedMutations.withLock { $0 } ?? 0
        let outcome = await flights.run(
            key, generation: generation, joining: joining, waitingAtMost: timeout,
            leading: {
                await self.firstStep(
                    request, key: key, storing: storing, generation: generation, mutationsSeen: mutationsSeen,
                    readingSecondLevel: readingSecondLevel, throttle: failSafeThrottle)
            },
            work: { secondLevelGeneration in
                let outcome = await self.upstreamExchange(
                    request, storing: storing, generation: generation, mutationsSeen: mutationsSeen,
                    secondLevelGeneration: secondLevelGeneration)
                if let failSafeThrottle { self.updateThrottle(key, after: outcome, for: failSafeThrottle) }
                return outcome
            })
        let answer: (value: NetworkOutcome, joined: Bool)
        switch outcome {
        case .answered(let given): answer = given
        case .timedOut: return .timedOut
        case .cancelled: return .cancelled
        }
        if answer.joined {
            store.record(.deduplicatedJoin(key: request.document.keyName), in: scope)
        }
        if case .failure(let error) = answer.value, error.code == .failSafeThrottled, !acceptsThrottled {
            let retried = await networkAnswer(
                request, storing: storing, joining: .newCallOnly, readingSecondLevel: readingSecondLevel,
                failSafeThrottle: nil, acceptsThrottled: false, waitingAtMost: timeout)
            if case .answered(.success) = retried { shared.throttle.lift(key) }
            return retried
        }
        return .answered(answer.value)
    }

    /// Sends the operation, reads the answer and, when `storing`, merges it into the store unless the scope
    /// was cleared since `generation` was taken (before sending) or, for a query, unless a mutation of this client
    /// wrote its result since `mutationsSeen` was read (nil for a mutation, whose write is counted).
    func exchange(
        _ request: PreparedRequest,
        storing: Bool,
        generation: CacheGeneration,
        mutationsSeen: UInt64?,
        readingSecondLevel: Bool = false
    ) async -> NetworkOutcome {
        switch await firstStep(
            request, key: nil, storing: storing, generation: generation, mutationsSeen: mutationsSeen,
            readingSecondLevel: readingSecondLevel, throttle: nil)
        {
        case .answered(let outcome): return outcome
        case .continuing(let secondLevelGeneration):
            return await upstreamExchange(
                request, storing: storing, generation: generation, mutationsSeen: mutationsSeen,
                secondLevelGeneration: secondLevelGeneration)
        }
    }

    /// The first step of a flight, taken by its leader in its own task: a throttled query's failure, a public
    /// answer another session shared, or the second level's; otherwise the generation the second level read (to write
    /// the upstream's answer back with).
    func firstStep(
        _ request: PreparedRequest, key: FlightKey?, storing: Bool, generation: CacheGeneration, mutationsSeen: UInt64?,
        readingSecondLevel: Bool, throttle: Duration?
    ) async -> InFlightLeaderStep<NetworkOutcome, SecondLevelGeneration?> {
        if throttle != nil, let key, shared.throttle.isThrottled(key, at: store.clock.now()) {
            return .answered(.failure(.failSafeThrottledError()))
        }
        // A background refresh or a flight that starts after close reads and sends nothing.
        if isClosed {
            return .answered(.failure(.closedError()))
        }
        if readingSecondLevel, storing, let mutationsSeen, configuration.sharesPublicResponses,
            request.document.kind == .query,
            let shared = servePublicResponse(request, generation: generation, mutationsSeen: mutationsSeen)
        {
            if throttle != nil, let key { self.shared.throttle.lift(key) }
            return .answered(.success(shared))
        }
        guard readingSecondLevel, storing, let mutationsSeen, let secondLevel, request.document.kind == .query else {
            return .continuing(nil)
        }
        switch await consultSecondLevel(secondLevel, request, generation: generation, mutationsSeen: mutationsSeen) {
        case .served(let answer):
            if throttle != nil, let key { shared.throttle.lift(key) }
            return .answered(.success(answer))
        case .upstream(let readGeneration): return .continuing(readGeneration)
        }
    }

    /// The upstream part of a flight, in a task of its own: send, parse, merge into the store, write the second
    /// level and share a public answer.
    func upstreamExchange(
        _ request: PreparedRequest,
        storing: Bool,
        generation: CacheGeneration,
        mutationsSeen: UInt64?,
        secondLevelGeneration: SecondLevelGeneration?
    ) async -> NetworkOutcome {
        if isClosed {
            return .failure(.closedError())
        }
        let parsed: GraphQLHTTPResponse
        switch await answer(request) {
        case .success(let answer): parsed = answer
        case .failure(let error): return .failure(error)
        }
        guard let data = parsed.data, parsed.errors.isEmpty || configuration.partialDataPolicy != .fail else {
            return .failure(parsed.failure(code: .graphQLErrors))
        }
        var answer = NetworkAnswer(data: data, errors: parsed.errors, extensions: parsed.extensions, wasStored: false)
        // `Cache-Control: no-store`: delivered, never stored (nor kept by the second level or shared).
        guard storing, !parsed.upstream.isNoStore,
            parsed.errors.isEmpty || configuration.partialDataPolicy == .deliverAndCache
        else {
            return .success(answer)
        }
        do {
            answer.wasStored = try merge(
                data, of: request, generation: generation, mutationsSeen: mutationsSeen, upstream: parsed.upstream)
        } catch {
            return .failure(error)
        }
        if answer.wasStored, parsed.errors.isEmpty, let secondLevel, let secondLevelGeneration {
            secondLevel.write(
                secondLevelEntry(data, of: request, upstreamMaxAge: parsed.upstream.maxAge),
                for: secondLevelKey(request), in: scope, generation: secondLevelGeneration)
        }
        if answer.wasStored, parsed.errors.isEmpty, configuration.sharesPublicResponses,
            request.document.kind == .query
        {
            sharePublicResponse(data, of: request, upstream: parsed.upstream)
        }
        return .success(answer)
    }

    /// Merges an answer's data into the store unless the scope was cleared since `generation` or, for a query, a
    /// mutation of this client wrote its result since `mutationsSeen` (nil for a mutation, whose write is
    /// counted). Returns whether it was stored: never once the client is closed (an answer in flight at ``close()``
    /// is delivered only).
    ///
    /// `upstream` gives the fields their hinted `maxAge`; `writtenAt` stamps them with an earlier write time (an
    /// answer kept since then) instead of now.
    func merge(
        _ data: GraphQLJSONObject, of request: PreparedRequest, generation: CacheGeneration, mutationsSeen: UInt64?,
        upstream: UpstreamCachePolicy = .none, writtenAt: CacheInstant? = nil
    ) throws(GraphQLCacheError) -> Bool {
        // Made here if the session has none yet: it counts this write (a mutation) and keeps the timestamp.
        let state = state()
        let outcome = try state.landedMutations.withLock { landed throws(GraphQLCacheError) -> GraphQLWriteOutcome? in
            if binding.isClosed {
                return nil
            }
            if let mutationsSeen, mutationsSeen != landed {
                return nil  // older than a mutation's result: delivered, not stored
            }
            let outcome = try store.write(
                request.document.operation,
                variables: request.variables,
                data: data,
                in: scope,
                ifGeneration: generation,
                upstream: upstream,
                writtenAt: writtenAt
            )
            if mutationsSeen == nil, outcome.changes != nil {
                landed += 1
                state.lastMutationWrite.store(store.clock.now().nanoseconds, ordering: .relaxed)
            }
            return outcome
        }
        let stored = outcome?.changes != nil
        if stored, request.document.kind == .query {
            state.timestamps.record(request, at: store.clock.now())
        }
        return stored
    }

    /// The upstream's parsed answer, under automatic persisted queries when configured: the hash first, the
    /// document with its hash after `PersistedQueryNotFound`, the document alone after `PersistedQueryNotSupported`,
    /// and APQ off for this upstream (its URL) from then on, for every client of the store: every session's.
    private func answer(_ request: PreparedRequest) async -> Result<GraphQLHTTPResponse, GraphQLCacheError> {
        guard configuration.usesAutomaticPersistedQueries, !store.persistedQuerySupport.isUnsupported(url) else {
            return await parsedAnswer(request, payload: .document)
        }
        let first = await parsedAnswer(request, payload: .hashOnly)
        switch PersistedQueryVerdict(first) {
        case .answered:
            return first
        case .notFound:
            return await parsedAnswer(request, payload: .documentAndHash)
        case .notSupported:
            store.persistedQuerySupport.markUnsupported(url)
            return await parsedAnswer(request, payload: .document)
        }
    }

    private func parsedAnswer(
        _ request: PreparedRequest, payload: DocumentPayload
    ) async -> Result<GraphQLHTTPResponse, GraphQLCacheError> {
        switch await send(request, payload: payload) {
        case .success(let response):
            do {
                return .success(try GraphQLHTTPResponse(response))
            } catch {
                return .failure(error)
            }
        case .failure(let error):
            return .failure(error)
        }
    }

    /// POSTs the operation (or GETs a query, when configured) with the session's credentials; counts the call.
    private func send(
        _ request: PreparedRequest, payload: DocumentPayload
    ) async -> Result<CurlHTTPClient.Response, GraphQLCacheError> {
        // Closed while the operation waited for the second level: nothing goes out.
        if isClosed {
            return .failure(.closedError())
        }
        var headers = configuration.headers
        let credentials = credentials
        for (name, value) in credentials.headers {
            headers.replaceOrAdd(name: name, value: value)
        }
        let name = request.document.operation.operation.name
        var httpRequest = CurlHTTPClient.Request(
            url: url,
            headers: headers,
            timeout: configuration.requestTimeout,
            cookieJar: credentials.cookieJar
        )
        let extensions: GraphQLJSONObject? =
            payload == .document ? nil : .persistedQuery(sha256: request.document.sha256)
        let sendsDocument = payload != .hashOnly
        let usesGET =
            request.document.kind == .query
            && (sendsDocument ? configuration.usesGETForQueries : configuration.usesGETForHashedQueries)
        if usesGET {
            var parameters: [String] = []
            if sendsDocument {
                parameters.append("query=" + Self.percentEncoded(request.document.text))
            }
            if let name {
                parameters.append("operationName=" + Self.percentEncoded(name))
            }
            parameters.append("variables=" + Self.percentEncoded(GraphQLJSON.object(request.variables).jsonText()))
            if let extensions {
                parameters.append("extensions=" + Self.percentEncoded(GraphQLJSON.object(extensions).jsonText()))
            }
            httpRequest.url += (url.contains("?") ? "&" : "?") + parameters.joined(separator: "&")
        } else {
            var body = GraphQLJSONObject()
            if sendsDocument {
                body["query"] = .string(request.document.text)
            }
            if let name {
                body["operationName"] = .string(name)
            }
            body["variables"] = .object(request.variables)
            if let extensions {
                body["extensions"] = .object(extensions)
            }
            httpRequest.method = .post
            httpRequest.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            httpRequest.body = Data(GraphQLJSON.object(body).jsonBytes())
            // A query changes nothing upstream: its POST may be resent once after a dead keep-alive connection.
            // A mutation may not (the transport fails it with notRetried instead).
            httpRequest.isIdempotent = request.document.kind == .query ? true : nil
        }
        let key = request.document.keyName
        do {
            let response = try await execute(httpRequest, for: request)
            store.record(.networkFetch(key: key, status: response.status, duration: response.timings.total), in: scope)
            return .success(response)
        } catch {
            store.record(.networkFetch(key: key, status: nil, duration: .zero), in: scope)
            if error.code == .cancelled {
                return .failure(.cancelledError())
            }
            return .failure(
                GraphQLCacheError(
                    code: .transportFailed,
                    message: "The request to the GraphQL upstream failed: \(error.code).",
                    underlying: error
                )
            )
        }
    }

    /// RFC 3986 unreserved characters stay, everything else is percent-encoded (`&`, `=`, `+` included).
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
