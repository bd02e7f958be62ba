import CacheCore
import CurlHTTP

/// The service's calls to ``APIService/Configuration/instrumentation``: each returns at once to the plain path
/// when none is installed.
extension APIService {
    /// Sends an upstream request as a `CacheOperation/restFetch` operation, current for the request's task.
    func execute(
        _ httpRequest: CurlHTTPClient.Request, method: CurlHTTPClient.Method, path: String,
        outcome: @autoclosure () -> String
    ) async throws(CurlHTTPError) -> CurlHTTPClient.Response {
        guard let instrumentation = configuration.instrumentation else { return try await client.execute(httpRequest) }
        var attributes = CacheOperationAttributes(
            part: "rest", method: method.rawValue, route: CacheRouteTemplate.of(path), outcome: outcome())
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

    /// Reads the second level as a `CacheOperation/secondLevelRead` operation.
    func readSecondLevel(
        _ level: any RESTSecondLevel, _ placement: RequestPlan.CachePlacement
    ) async -> RESTSecondLevelRead {
        guard let instrumentation = configuration.instrumentation else {
            return await level.read(key: placement.key, in: placement.scope)
        }
        var attributes = CacheOperationAttributes(part: "rest")
        let token = instrumentation.start(.secondLevelRead, attributes: attributes)
        let read = await level.read(key: placement.key, in: placement.scope)
        switch read {
        case .hit: attributes.outcome = "hit"
        case .miss: attributes.outcome = "miss"
        case .unavailable: attributes.outcome = "unavailable"
        }
        instrumentation.end(token, attributes: attributes)
        return read
    }
}
