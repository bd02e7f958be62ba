import CacheCore
import CurlHTTP

/// The client's calls to ``GraphQLClient/Configuration/instrumentation``, through the sequence every door shares
/// (`CacheDoorInstrumentation`): each returns at once to the plain path when none is installed.
extension GraphQLClient {
    /// Sends an operation upstream as a `CacheOperation/graphQLFetch` operation, current for the caller's task.
    /// Attributes name the operation and its type, the endpoint's host, port and path, never its variables or
    /// document.
    func execute(
        _ httpRequest: CurlHTTPClient.Request, for request: PreparedRequest
    ) async throws(CurlHTTPError) -> CurlHTTPClient.Response {
        let transport = transport
        return try await CacheDoorInstrumentation.upstreamCall(
            configuration.instrumentation, .graphQLFetch,
            attributes: {
                let isQuery = request.document.kind == .query
                let server = CacheServerAddress(url: httpRequest.url)
                var attributes = CacheOperationAttributes(
                    part: CacheHit.Part.graphql.rawValue, method: httpRequest.method.rawValue,
                    route: server.map { CacheRouteTemplate.of($0.path) },
                    graphQLOperationName: request.document.operation.operation.name ?? "anonymous",
                    graphQLOperationType: isQuery ? "query" : "mutation",
                    outcome: (isQuery ? CacheOutcome.miss : CacheOutcome.bypass).rawValue,
                    tier: CacheTier.upstream.rawValue)
                attributes.setServer(server)
                return attributes
            },
            status: \.status, failure: { (error: CurlHTTPError) in "\(error.code)" },
            call: { () async throws(CurlHTTPError) -> CurlHTTPClient.Response in
                try await transport.execute(httpRequest)
            }
        )
    }

    /// Reads the second level as a `CacheOperation/secondLevelRead` operation.
    func readSecondLevel(
        _ level: any GraphQLSecondLevel, _ key: GraphQLSecondLevelKey
    ) async -> GraphQLSecondLevelRead {
        await CacheDoorInstrumentation.secondLevelRead(
            configuration.instrumentation, part: .graphql, backend: level.backend
        ) {
            await level.read(key, in: scope)
        }
    }

    /// A query answered from the normalized store or the second level: one call to the instrumentation, with the
    /// resilience option that chose the answer when one did.
    func reportServed(_ tier: CacheTier, _ outcome: CacheOutcome, reason: CacheStaleReason? = nil) {
        CacheDoorInstrumentation.served(
            configuration.instrumentation, part: .graphql, tier: tier, outcome: outcome, reason: reason,
            staleAnswers: shared.staleAnswers)
    }
}
