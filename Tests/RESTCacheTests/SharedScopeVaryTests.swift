import FixtureSupport
import Foundation
import RESTCache
import Testing

/// The fixture's `/api/tenant-notice`: a public answer per `X-Tenant` (and `X-Api-Key`) the request sends.
struct TenantNotice: Decodable, Sendable, Equatable {
    var tenant: String
    var key: String
}

/// A shared read of the tenant notice: its own headers, and the `Vary` the fixture sends (nil: `X-Tenant`).
struct TenantNoticeRequest: RequestType {
    typealias Response = TenantNotice
    var ownHeaders: CurlHTTPClient.Headers = [:]
    var vary: String?
    var path: String { "/api/tenant-notice" }
    var queryItems: [QueryItem] { vary.map { [QueryItem("vary", $0)] } ?? [] }
    var headers: CurlHTTPClient.Headers { ownHeaders }
    var cache: RequestCache? = RequestCache(key: "tenant.notice", timeout: .seconds(300), isShared: true)
}

/// The tenant a request decorator reads: what a BFF's middleware sets from the incoming request.
enum DecoratedTenant {
    @TaskLocal static var current: String?
}

@Suite("REST shared scope: an answer that varies is keyed by what each session sends; credentials never shared")
struct SharedScopeVaryTests {
    private static let route = "GET /api/tenant-notice"

    /// One core for every session's service, as a BFF holds it.
    private func core(_ harness: Harness, _ configuration: APIService.Configuration = .init()) -> APIService.Shared {
        APIService.Shared(
            baseURL: harness.tenant.baseURL, client: harness.client, configuration: configuration, clock: harness.clock)
    }

    /// A session's service over `core` whose credentials carry extra headers (`X-Tenant`, say) beside its bearer
    /// token.
    private func service(
        _ harness: Harness, _ core: APIService.Shared, _ user: FixtureTenant.User,
        credentialHeaders: CurlHTTPClient.Headers = [:]
    ) -> APIService {
        var headers: CurlHTTPClient.Headers = ["Authorization": user.authorization]
        for field in credentialHeaders { headers.replaceOrAdd(name: field.name, value: field.value) }
        return APIService(
            shared: core, cache: CacheManager(store: harness.store, scope: .session(user.rawValue)),
            credentials: UpstreamCredentials(headers: headers))
    }

    @Test("a shared request carrying X-Api-Key (a default extra credential) is kept in its session, never shared")
    func apiKeyIsACredential() async throws {
        let harness = try await Harness("svary-apikey")
        let shared = core(harness)
        let alice = service(harness, shared, .alice)
        let bob = service(harness, shared, .bob)
        let forAlice = try await alice.perform(with: TenantNoticeRequest(ownHeaders: ["X-Api-Key": "key-a"], vary: ""))
            .value()
        #expect(forAlice.key == "key-a")
        #expect(harness.store.entryCount(in: .shared) == 0)
        let forBob = try await bob.performWithSource(
            with: TenantNoticeRequest(ownHeaders: ["X-Api-Key": "key-b"], vary: "")
        ).value()
        #expect(forBob.data.key == "key-b")
        #expect(forBob.source == .network)
        #expect(try await harness.counters().route(Self.route) == 2)
    }

    @Test("a header the session's credentials set is a credential: a request repeating it is not shared")
    func sessionCredentialHeaderIsACredential() async throws {
        let harness = try await Harness("svary-session")
        let shared = core(harness)
        let alice = service(harness, shared, .alice, credentialHeaders: ["X-Tenant": "acme"])
        let bob = service(harness, shared, .bob, credentialHeaders: ["X-Tenant": "globex"])
        _ = try await alice.perform(with: TenantNoticeRequest(ownHeaders: ["X-Tenant": "acme"], vary: "")).value()
        #expect(harness.store.entryCount(in: .shared) == 0)
        let forBob = try await bob.perform(with: TenantNoticeRequest(ownHeaders: ["X-Tenant": "globex"], vary: ""))
            .value()
        #expect(forBob.tenant == "globex")
    }

    @Test("an answer that varies on a credential (standard, configured, or the session's) is not stored shared")
    func varyOnCredentialNotShared() async throws {
        let harness = try await Harness("svary-oncred")
        var configuration = APIService.Configuration()
        configuration.defaultHeaders.replaceOrAdd(name: "X-Api-Key", value: "service-key")
        let alice = service(harness, core(harness, configuration), .alice)
        _ = try await alice.perform(with: TenantNoticeRequest(vary: "X-Api-Key")).value()
        #expect(harness.store.entryCount(in: .shared) == 0)

        let carol = service(harness, core(harness), .carol, credentialHeaders: ["X-Tenant": "acme"])
        _ = try await carol.perform(with: TenantNoticeRequest(vary: "X-Tenant")).value()
        #expect(harness.store.entryCount(in: .shared) == 0)
        _ = try await carol.perform(with: TenantNoticeRequest(vary: "Accept, Proxy-Authorization")).value()
        #expect(harness.store.entryCount(in: .shared) == 0)
        #expect(try await harness.counters().route(Self.route) == 3)
    }

    @Test("Vary: * is never stored in the shared scope")
    func varyStarNotShared() async throws {
        let harness = try await Harness("svary-star")
        let alice = service(harness, core(harness), .alice)
        _ = try await alice.perform(with: TenantNoticeRequest(vary: "*")).value()
        _ = try await alice.perform(with: TenantNoticeRequest(vary: "*")).value()
        #expect(harness.store.entryCount(in: .shared) == 0)
        #expect(try await harness.counters().route(Self.route) == 2)
    }

    @Test("a tenant set by the transport's request decorator keys the shared answer: same tenant shares, another not")
    func decoratedTenantKeysTheVariant() async throws {
        var transport = CurlHTTPClient.Configuration()
        transport.requestDecorator = { request in
            if let tenant = DecoratedTenant.current { request.headers.replaceOrAdd(name: "X-Tenant", value: tenant) }
        }
        let harness = try await Harness("svary-decorated", transport: transport)
        let shared = core(harness)
        let alice = service(harness, shared, .alice)
        let bob = service(harness, shared, .bob)
        let carol = service(harness, shared, .carol)
        let forAlice = try await DecoratedTenant.$current.withValue("acme") {
            try await alice.perform(with: TenantNoticeRequest()).value()
        }
        #expect(forAlice.tenant == "acme")
        let forBob = try await DecoratedTenant.$current.withValue("globex") {
            try await bob.performWithSource(with: TenantNoticeRequest()).value()
        }
        #expect(forBob.data.tenant == "globex")
        #expect(forBob.source == .network)
        let forCarol = try await DecoratedTenant.$current.withValue("acme") {
            try await carol.performWithSource(with: TenantNoticeRequest()).value()
        }
        #expect(forCarol.data.tenant == "acme")
        #expect(forCarol.source == .cache)
        #expect(try await harness.counters().route(Self.route) == 2)
    }

    @Test("the same tenant value sent by the request shares one answer, counted as a hit of the shared scope")
    func sameTenantShares() async throws {
        let harness = try await Harness("svary-same")
        let shared = core(harness)
        let alice = service(harness, shared, .alice)
        let bob = service(harness, shared, .bob)
        let carol = service(harness, shared, .carol)
        _ = try await alice.perform(with: TenantNoticeRequest(ownHeaders: ["X-Tenant": "acme"])).value()
        let forBob = try await bob.performWithSource(with: TenantNoticeRequest(ownHeaders: ["X-Tenant": "acme"]))
            .value()
        #expect(forBob.source == .cache)
        #expect(forBob.data.tenant == "acme")
        let forCarol = try await carol.performWithSource(
            with: TenantNoticeRequest(ownHeaders: ["X-Tenant": "globex"])
        ).value()
        #expect(forCarol.data.tenant == "globex")
        #expect(forCarol.source == .network)
        #expect(harness.store.statistics(for: .shared).hits == 1)
        #expect(try await harness.counters().route(Self.route) == 2)
    }

    @Test("the extra credential names are configurable: a listed header is kept in the session, an unlisted one shared")
    func configurableCredentialNames() async throws {
        let harness = try await Harness("svary-config")
        let tenantIsCredential = APIService.Configuration(credentialHeaderNames: ["X-Tenant"])
        let alice = service(harness, core(harness, tenantIsCredential), .alice)
        _ = try await alice.perform(with: TenantNoticeRequest(ownHeaders: ["X-Tenant": "acme"], vary: "")).value()
        #expect(harness.store.entryCount(in: .shared) == 0)
        #expect(harness.store.entryCount(in: .session("alice")) == 1)

        // Without X-Api-Key in the list, an API key is an ordinary header: the answer is shared (as configured).
        let noExtras = APIService.Configuration(credentialHeaderNames: [])
        let bob = service(harness, core(harness, noExtras), .bob)
        _ = try await bob.perform(with: TenantNoticeRequest(ownHeaders: ["X-Api-Key": "key-b"], vary: "")).value()
        #expect(harness.store.entryCount(in: .shared) == 1)
        #expect(APIService.Configuration().credentialHeaderNames == ["X-Api-Key"])
    }

    @Test("the memory budget reclaims shared-scope answers as it does a session's")
    func budgetReclaimsSharedScope() async throws {
        let harness = try await Harness("svary-budget")
        let budget = try MemoryBudget(limit: 64 << 20)
        let store = try CacheStore(clock: harness.clock, budget: budget)
        let shared = core(harness)
        let alice = APIService(
            shared: shared, cache: CacheManager(store: store, scope: .session("alice")), credentials: .bearer("t"))
        _ = try await alice.perform(with: TenantNoticeRequest(ownHeaders: ["X-Tenant": "acme"])).value()
        #expect(store.entryCount(in: .shared) == 2)  // the Vary descriptor and acme's variant
        try budget.updateLimit(1)
        #expect(store.entryCount(in: .shared) == 0)
        #expect(budget.usedBytes == 0)
    }
}
