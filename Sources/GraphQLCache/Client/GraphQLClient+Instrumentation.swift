import CacheCore
import CurlHTTP

/// The client's calls to ``GraphQLClient/Configuration/instrumentation``: each returns at once to the plain path
/// when none is installed.
extension GraphQLClient {
    /// Sends an operation upstream as a `CacheOperation/graphQLFetch` operation, current for the caller's task.
    /// Attributes name the operation and its type, the endpoint's host, port and path, never its variables or
    /// document.
    func execute(
        _ httpRequest: CurlHTTPClient.Request, for request: PreparedRequest
    ) async throws(CurlHTTPError) -> CurlHTTPClient.Response {
        guard let instrumentation = configuration.instrumentation else {
            return try await transport.execute(httpRequest)
        }
        let isQuery = request.document.kind == .query
        let server = CacheServerAddress(url: httpRequest.url)
        var attributes = CacheOperationAttributes(
            part: "graphql", method: httpRequest.method.rawValue, route: server.map { CacheRouteTemplate.of($0.path) },
            graphQLOperationName: request.document.operation.operation.name ?? "anonymous",
            graphQLOperationType: isQuery ? "query" : "mutation",
            outcome: (isQuery ? CacheOutcome.miss : CacheOutcome.bypass).rawValue, tier: CacheTier.upstream.rawValue)
        attributes.setServer(server)
        let token = instrumentation.start(.graphQLFetch, attributes: attributes)
        let transport = transport
        let result: Result<CurlHTTPClient.Response, CurlHTTPError> = await instrumentation.withCurrent(token) {
            do throws(CurlHTTPError) {
                return .success(try await transport.execute(httpRequest))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let response): attributes.status = response.status
        case .failure(let error): attributes.failure = "\(error.code)"
        }
        instrumentation.end(token, attributes: attributes)
        return try result.get()
    }

    /// Reads the second level as a `CacheOperation/secondLevelRead` operation.
    func readSecondLevel(
        _ level: any GraphQLSecondLevel, _ key: GraphQLSecondLevelKey
    ) async -> GraphQLSecondLevelRead {
        guard let instrumentation = configuration.instrumentation else { return await level.read(key, in: scope) }
        var attributes = CacheOperationAttributes(part: "graphql", tier: CacheTier.l2.rawValue)
        attributes.setBackend(level.backend)
        let token = instrumentation.start(.secondLevelRead, attributes: attributes)
        let read = await level.read(key, in: scope)
        switch read {
        case .hit: attributes.outcome = CacheOutcome.hit.rawValue
        case .miss: attributes.outcome = CacheOutcome.miss.rawValue
        case .unavailable:
            attributes.outcome = CacheOutcome.miss.rawValue
            attributes.failure = "unavailable"
        }
        instrumentation.end(token, attributes: attributes)
        return read
    }

    /// A query answered from the normalized store or the second level: one call to the instrumentation, with the
    /// resilience option that chose the answer when one did.
    func reportServed(_ tier: CacheTier, _ outcome: CacheOutcome, reason: CacheStaleReason? = nil) {
        if let reason { shared.staleAnswers.record(reason) }
        configuration.instrumentation?.cacheDidServe(
            CacheHit(part: .graphql, tier: tier, outcome: outcome, staleReason: reason))
    }
}
