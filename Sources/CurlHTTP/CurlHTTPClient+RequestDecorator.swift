extension CurlHTTPClient {
    /// Changes each request just before it is sent: adds a header the caller's context knows (a W3C `traceparent`
    /// of the current span, a request id), on every request the client sends, whichever module built it.
    ///
    /// Called by ``CurlHTTPClient/execute(_:)`` in the calling task, before validation, so task-local values (such
    /// as swift-distributed-tracing's `ServiceContext.current`) are the caller's. Keep it cheap and never throw:
    /// it runs on every upstream request.
    public typealias RequestDecorator = @Sendable (inout Request) -> Void
}

extension CurlHTTPClient.Configuration {
    /// `request` as ``requestDecorator`` leaves it (unchanged without one).
    func decorated(_ request: CurlHTTPClient.Request) -> CurlHTTPClient.Request {
        guard let requestDecorator else { return request }
        var decorated = request
        requestDecorator(&decorated)
        return decorated
    }
}
