import CacheCore
import CurlHTTP

/// The service's calls to ``APIService/Configuration/instrumentation``: each returns at once to the plain path
/// when none is installed.
extension APIService {
    /// Sends an upstream request as a `CacheOperation/restFetch` operation, current for the request's task, with
    /// the upstream's host and port (from the request's URL) and the path's route template, never the raw path.
    func execute(
        _ httpRequest: CurlHTTPClient.Request, method: CurlHTTPClient.Method, path: String,
        outcome: @autoclosure () -> CacheOutcome
    ) async throws(CurlHTTPError) -> CurlHTTPClient.Response {
        guard let instrumentation = configuration.instrumentation else { return try await client.execute(httpRequest) }
        var attributes = CacheOperationAttributes(
            part: "rest", method: method.rawValue, route: CacheRouteTemplate.of(path), outcome: outcome().rawValue,
            tier: CacheTier.upstream.rawValue)
        attributes.setServer(CacheServerAddress(url: httpRequest.url))
        let token = instrumentation.start(.restFetch, attributes: attributes)
        let client = client
        let result: Result<CurlHTTPClient.Response, CurlHTTPError> = await instrumentation.withCurrent(token) {
            do throws(CurlHTTPError) {
                return .success(try await client.execute(httpRequest))
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

    /// Reads the second level as a `CacheOperation/secondLevelRead` operation, with what the store says of itself.
    func readSecondLevel(
        _ level: any RESTSecondLevel, _ placement: RequestPlan.CachePlacement
    ) async -> RESTSecondLevelRead {
        guard let instrumentation = configuration.instrumentation else {
            return await level.read(key: placement.key, in: placement.scope)
        }
        var attributes = CacheOperationAttributes(part: "rest", tier: CacheTier.l2.rawValue)
        attributes.setBackend(level.backend)
        let token = instrumentation.start(.secondLevelRead, attributes: attributes)
        let read = await level.read(key: placement.key, in: placement.scope)
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

    /// A read answered from memory or the second level: one call to the instrumentation, no allocation.
    @usableFromInline
    func reportServed(_ tier: CacheTier, _ outcome: CacheOutcome, reason: CacheStaleReason? = nil) {
        if let reason { shared.staleAnswers.record(reason) }
        configuration.instrumentation?.cacheDidServe(
            CacheHit(part: .rest, tier: tier, outcome: outcome, staleReason: reason))
    }
}
