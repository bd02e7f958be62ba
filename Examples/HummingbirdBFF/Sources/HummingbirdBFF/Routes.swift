import Hummingbird
import UnifiedCache
import UnifiedCacheMetrics

/// The BFF's routes, each traced (a server span the cache's spans are children of). Every route but `/health`,
/// `/metrics` and `/debug/spans` needs `Authorization: Bearer <token>`.
func makeRouter(_ bff: BankBFF, observability: Observability, metrics: CacheHubMetrics) -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: TracingMiddleware())
    router.get("/health") { _, _ in bff.health() }
    router.get("/metrics") { _, _ in observability.metricsResponse(metrics) }
    if observability.spans != nil {
        router.get("/debug/spans") { _, _ in try observability.spansResponse() }
    }
    router.get("/dashboard") { request, _ in
        try await bff.dashboard(bff.session(for: request))
    }
    router.post("/payments") { request, context in
        let session = try await bff.session(for: request)
        let input = try await request.decode(as: PaymentInput.self, context: context)
        return try await bff.pay(input, session: session)
    }
    router.post("/logout") { request, _ -> HTTPResponse.Status in
        try await bff.logout(request)
        return .noContent
    }
    return router
}
