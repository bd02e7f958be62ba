import CacheCore
import CurlHTTP
import Foundation
import Synchronization

/// What one upstream exchange produced, shared by every caller that joined it.
struct NetworkAnswer: Sendable {
    var data: GraphQLJSONObject
    var errors: [GraphQLResponseError]
    var extensions: GraphQLJSONObject?
    var wasStored: Bool
}

typealias NetworkOutcome = Result<NetworkAnswer, GraphQLCacheError>

/// Identical queries: the same prepared document, the same canonical variables, stored or not.
struct FlightKey: Hashable, Sendable {
    let documentID: Int
    let variables: String
    let storing: Bool
}

extension GraphQLClient {
    /// One upstream exchange for every concurrent identical query of this client that may share it: a query
    /// joins an exchange only if the scope was not cleared (and no mutation succeeded) since it left, and only
    /// when `joining` allows it (network-only policies start their own).
    func networkAnswer(
        _ request: PreparedRequest,
        storing: Bool,
        joining: InFlightCalls<FlightKey, NetworkOutcome>.Joining
    ) async -> NetworkOutcome {
        let key = FlightKey(
            documentID: request.document.id,
            variables: request.queryKey.canonicalVariables,
            storing: storing
        )
        let generation = store.generation(of: scope)
        let mutationsSeen = landedMutations.withLock { $0 }
        let outcome = await flights.run(key, generation: generation, joining: joining) {
            await self.exchange(request, storing: storing, generation: generation, mutationsSeen: mutationsSeen)
        }
        guard let outcome else {
            return .failure(.cancelledError())
        }
        if outcome.joined {
            store.record(.deduplicatedJoin(key: request.document.keyName), in: scope)
        }
        return outcome.value
    }

    /// Sends the operation, reads the answer and, when `storing`, merges it into the store unless the scope
    /// was cleared since `generation` was taken (before sending) or, for a query, unless a mutation of this client
    /// wrote its result since `mutationsSeen` was read (nil for a mutation, whose write is counted).
    func exchange(
        _ request: PreparedRequest,
        storing: Bool,
        generation: CacheGeneration,
        mutationsSeen: UInt64?
    ) async -> NetworkOutcome {
        let response: CurlHTTPClient.Response
        switch await send(request) {
        case .success(let answer): response = answer
        case .failure(let error): return .failure(error)
        }
        let parsed: GraphQLHTTPResponse
        do {
            parsed = try GraphQLHTTPResponse(response)
        } catch {
            return .failure(error)
        }
        guard let data = parsed.data, parsed.errors.isEmpty || configuration.partialDataPolicy != .fail else {
            return .failure(parsed.failure(code: .graphQLErrors))
        }
        var answer = NetworkAnswer(data: data, errors: parsed.errors, extensions: parsed.extensions, wasStored: false)
        guard storing, parsed.errors.isEmpty || configuration.partialDataPolicy == .deliverAndCache else {
            return .success(answer)
        }
        do {
            let outcome = try landedMutations.withLock { landed throws(GraphQLCacheError) -> GraphQLWriteOutcome? in
                if let mutationsSeen, mutationsSeen != landed {
                    return nil  // older than a mutation's result: delivered, not stored
                }
                let outcome = try store.write(
                    request.document.operation,
                    variables: request.variables,
                    data: data,
                    in: scope,
                    ifGeneration: generation
                )
                if mutationsSeen == nil, outcome.changes != nil {
                    landed += 1
                }
                return outcome
            }
            answer.wasStored = outcome?.changes != nil
        } catch {
            return .failure(error)
        }
        if answer.wasStored, request.document.kind == .query {
            timestamps.record(request, at: store.clock.now())
        }
        return .success(answer)
    }

    /// POSTs the operation (or GETs a query, when configured) with the session's credentials; counts the call.
    private func send(_ request: PreparedRequest) async -> Result<CurlHTTPClient.Response, GraphQLCacheError> {
        var headers = configuration.headers
        let credentials = credentials
        for (name, value) in credentials.headers {
            headers.replaceOrAdd(name: name, value: value)
        }
        let variables = GraphQLJSON.object(request.variables).jsonText()
        let name = request.document.operation.operation.name
        var httpRequest = CurlHTTPClient.Request(
            url: url,
            headers: headers,
            timeout: configuration.requestTimeout,
            cookieJar: credentials.cookieJar
        )
        if request.document.kind == .query, configuration.usesGETForQueries {
            var query = "query=" + Self.percentEncoded(request.document.text)
            if let name {
                query += "&operationName=" + Self.percentEncoded(name)
            }
            query += "&variables=" + Self.percentEncoded(variables)
            httpRequest.url += (url.contains("?") ? "&" : "?") + query
        } else {
            var body = GraphQLJSONObject()
            body["query"] = .string(request.document.text)
            if let name {
                body["operationName"] = .string(name)
            }
            body["variables"] = .object(request.variables)
            httpRequest.method = .post
            httpRequest.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            httpRequest.body = Data(GraphQLJSON.object(body).jsonBytes())
            // A query changes nothing upstream: its POST may be resent once after a dead keep-alive connection.
            // A mutation may not (the transport fails it with notRetried instead).
            httpRequest.isIdempotent = request.document.kind == .query ? true : nil
        }
        let key = request.document.keyName
        do {
            let response = try await transport.execute(httpRequest)
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
