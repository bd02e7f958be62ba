import HTTPTypes
import Hummingbird
import UnifiedCache
import UnifiedCacheHummingbird
import UnifiedCacheMetrics

/// The request context: Hummingbird's, plus the user's cache session that `CacheSessionMiddleware` fills in.
struct BFFContext: CacheRequestContext {
    var coreContext: CoreRequestContextStorage
    var cache = CacheRequestState()
    init(source: Source) { coreContext = .init(source: source) }
}

/// The BFF's routes, each traced (a server span the cache's spans are children of). `/dashboard`, `/payments`,
/// `/refresh/balances` and `/logout` need `Authorization: Bearer <token>`; `X-Session-ID` optionally picks one of the
/// user's sessions.
func makeRouter(
    hub: CacheHub, verifier: UpstreamTokenVerifier, configuration: BFFConfiguration,
    observability: Observability, metrics: CacheHubMetrics
) -> Router<BFFContext> {
    let router = Router(context: BFFContext.self)
    router.add(middleware: TracingMiddleware())
    router.get("/health") { _, _ in health(hub) }
    router.get("/metrics") { _, _ in observability.metricsResponse(metrics) }
    if observability.spans != nil {
        router.get("/debug/spans") { _, _ in observability.finishedSpans() }
    }
    if let floor = configuration.floorBody {
        // The benchmark's floor: the dashboard's bytes from a constant, through the same server and tracing.
        let body = ByteBuffer(bytes: floor)
        router.get("/dashboard") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: body))
        }
        return router
    }
    let user = router.group().add(middleware: CacheSessionMiddleware(hub: hub, identify: identify(verifier)))
    let cacheEnabled = configuration.cacheEnabled
    if cacheEnabled, let lifetime = configuration.dashboardMemo, keepsComposedDashboard(hub) {
        // The session's encoded dashboard, composed again only when a clear, a payment, logout or its short
        // lifetime dropped it (DashboardMemo.swift).
        user.get("/dashboard") { _, context in try await memoizedDashboard(context.cache, lifetime: lifetime) }
    } else {
        user.get("/dashboard") { _, context in
            try await upstream { try await dashboard(context.cache, cacheEnabled: cacheEnabled) }
        }
    }
    user.post("/payments") { request, context in
        let input = try await request.decode(as: PaymentInput.self, context: context)
        let session = try context.cache.requireSession()
        let receipt: PaymentReceipt
        do throws(GraphQLCacheError) {
            receipt = PaymentReceipt(try await session.graphQL.data(performing: MakePaymentMutation(input: input)))
        } catch {
            throw HTTPError(.unprocessableContent, message: "payment refused (\(error.code))")
        }
        // The balances changed: the session's composed dashboard goes, on every replica (a composition still
        // running is not stored either).
        await session.values.clear(tag: DashboardMemo.tag)
        return receipt
    }
    user.post("/refresh/balances") { _, context -> HTTPResponse.Status in
        // Pull-to-refresh: the balances domain cleared in the user's session (its REST entries, the balance fields
        // of the normalized records, and the composed dashboard, whose tag the domain names).
        try await context.cache.requireSession().cacheManager.clearBalancesCache()
        return .noContent
    }
    user.post("/logout") { request, context -> HTTPResponse.Status in
        // Everything of the session cleared on every replica, and the token's verdict forgotten.
        try await context.cache.endSession()
        UpstreamTokenVerifier.bearerToken(request.headers[.authorization]).map(verifier.forget(token:))
        return .noContent
    }
    return router
}

/// Who a request is: the owner of its bearer token as the upstream says (asked once per token), and the session the
/// client names in `X-Session-ID`, if any (the same id with another user's token is a session of its own). A
/// request without `Authorization` is anonymous: the cache's reads answer 401.
func identify(_ verifier: UpstreamTokenVerifier) -> CacheSessionMiddleware<BFFContext>.Identify {
    { request, _ in
        guard let authorization = headerValue(request.headers, .authorization) else { return nil }
        let token = UpstreamTokenVerifier.bearerToken(authorization)
        let principal: VerifiedPrincipal
        do throws(UnifiedCacheError) {
            // The token parsed once, here: the verifier is asked by token.
            guard let token else {
                throw UnifiedCacheError(code: .tokenRejected, message: "No bearer token was presented.")
            }
            principal = try await verifier.principal(token: token)
        } catch let error where error.code == .tokenRejected {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "unauthorized")
        } catch {
            throw HTTPError(.badGateway, message: "could not verify the token")
        }
        let sessionID = headerValue(request.headers, sessionIDHeader).flatMap { $0.isEmpty ? nil : $0 }
        return CacheIdentity(principal: principal, credentials: .bearer(token ?? ""), sessionID: sessionID)
    }
}

/// `headers[name]` without its cost on every request: the one field's value as it is (no copy); only a header sent
/// several times is joined with ", ", as `HTTPFields`' subscript joins it.
func headerValue(_ headers: HTTPFields, _ name: HTTPField.Name) -> String? {
    var found: String?
    for field in headers where field.name == name {
        guard found == nil else { return headers[name] }
        found = field.value
    }
    return found
}

let sessionIDHeader = HTTPField.Name("X-Session-ID")!

/// `GET /dashboard`: the account list (REST) and the balances (GraphQL), fetched concurrently through the session.
func dashboard(_ cache: CacheRequestState, cacheEnabled: Bool) async throws -> Dashboard {
    async let accounts = cache.response(
        for: AccountSummaryRequest(cachePolicy: cacheEnabled ? .cacheFirst : .networkOnly))
    async let balances =
        cacheEnabled
        ? cache.data(for: AccountBalancesQuery())
        : cache.requireSession().graphQL.data(for: AccountBalancesQuery(), cachePolicy: .fetchIgnoringCacheCompletely)
    return try await Dashboard(
        user: cache.requireSession().principal.subject, accounts: accounts, balances: balances.accounts)
}

/// A read's failure as the frontend sees it: 401 when the upstream refused the user's token, else 502 with the
/// error's stable code (never the upstream's body or the token).
func upstream<Value>(_ read: () async throws -> Value) async throws -> Value {
    do {
        return try await read()
    } catch let error as RESTCacheError {
        throw error.httpStatus == 401
            ? HTTPError(.unauthorized, message: "unauthorized")
            : HTTPError(.badGateway, message: "upstream failed (\(error.code))")
    } catch let error as GraphQLCacheError {
        throw HTTPError(.badGateway, message: "upstream failed (\(error.code))")
    }
}

/// `GET /health`: `ok`, and on a replica of a fleet the state of its two Redis links, e.g.
/// `ok replication=up second_level=up` (`reconnecting` while Redis is unreachable). Always 200: without Redis a
/// replica still serves from its memory and the upstreams, so the load balancer must keep sending it requests.
func health(_ hub: CacheHub) -> String {
    guard let replication = hub.replicationStatistics else { return "ok" }
    let link =
        switch replication.linkState {
        case .subscribed: "up"
        case .connecting: replication.disconnections == 0 ? "connecting" : "reconnecting"
        case .disconnected: "reconnecting"
        case .stopped: "stopped"
        }
    let secondLevel = hub.secondLevelStatistics.map { $0.store.isConnected ? "up" : "reconnecting" } ?? "off"
    return "ok replication=\(link) second_level=\(secondLevel)"
}
