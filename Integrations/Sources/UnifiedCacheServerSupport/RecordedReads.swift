import UnifiedCache

extension CacheSession {
    /// A REST request's answer in this session, noted in `recorder` for the response's `Cache-Status`.
    package func recordedResponse<Request: RequestType>(
        for request: Request, recorder: CacheStatusRecorder?
    ) async throws -> Request.Response {
        let answer = try await rest.responseWithSource(for: request)
        recorder?.record(CacheStatus(answer, method: request.method), reason: answer.staleReason)
        return answer.data
    }

    /// A GraphQL query's whole answer in this session, noted in `recorder` for the response's `Cache-Status`.
    package func recordedResult<Query: GraphQLQuery>(
        for query: Query, recorder: CacheStatusRecorder?
    ) async throws -> GraphQLResult<Query.Data> {
        let result = try await graphQL.result(for: query)
        recorder?.record(CacheStatus(result), reason: result.staleReason)
        return result
    }
}
