import CacheCore
import CurlHTTP

/// The service's calls to ``APIService/Configuration/instrumentation``, through the sequence every door shares
/// (`CacheDoorInstrumentation`): each returns at once to the plain path when none is installed.
extension APIService {
    /// Sends an upstream request as a `CacheOperation/restFetch` operation, current for the request's task, with
    /// the upstream's host and port (from the request's URL) and the path's route template, never the raw path.
    func execute(
        _ httpRequest: CurlHTTPClient.Request, method: CurlHTTPClient.Method, path: String,
        outcome: @autoclosure () -> CacheOutcome
    ) async throws(CurlHTTPError) -> CurlHTTPClient.Response {
        let client = client
        return try await CacheDoorInstrumentation.upstreamCall(
            configuration.instrumentation, .restFetch,
            attributes: {
                var attributes = CacheOperationAttributes(
                    part: CacheHit.Part.rest.rawValue, method: method.rawValue, route: CacheRouteTemplate.of(path),
                    outcome: outcome().rawValue, tier: CacheTier.upstream.rawValue)
                attributes.setServer(CacheServerAddress(url: httpRequest.url))
                return attributes
            },
            status: \.status, failure: { (error: CurlHTTPError) in "\(error.code)" },
            call: { () async throws(CurlHTTPError) -> CurlHTTPClient.Response in try await client.execute(httpRequest) }
        )
    }

    /// Reads the second level as a `CacheOperation/secondLevelRead` operation, with what the store says of itself.
    @usableFromInline
    func readSecondLevel(
        _ level: any RESTSecondLevel, _ placement: RequestPlan.CachePlacement
    ) async -> RESTSecondLevelRead {
        await CacheDoorInstrumentation.secondLevelRead(
            configuration.instrumentation, part: .rest, backend: level.backend
        ) {
            await level.read(key: placement.key, in: placement.scope)
        }
    }

    /// A read answered from memory or the second level: one call to the instrumentation, no allocation.
    @usableFromInline
    func reportServed(_ tier: CacheTier, _ outcome: CacheOutcome, reason: CacheStaleReason? = nil) {
        CacheDoorInstrumentation.served(
            configuration.instrumentation, part: .rest, tier: tier, outcome: outcome, reason: reason,
            staleAnswers: shared.staleAnswers)
    }
}
