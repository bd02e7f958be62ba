import Hummingbird
import UnifiedCache

/// The BFF's routes. Every route but `/health` and `/metrics` needs `Authorization: Bearer <token>`.
func makeRouter(_ bff: BankBFF) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/health") { _, _ in bff.health() }
    router.get("/metrics") { _, _ in
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: bff.hub.metricsText()))
        )
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
