import FixtureSupport
import Foundation
import RESTCache

/// A fixture tenant, one store with a manual clock, and a service per session — what a BFF holds.
struct Harness {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let store: CacheStore
    let client: CurlHTTPClient

    /// - Parameter transport: the HTTP client's configuration; tests that need two requests to the fixture at
    ///   once pass `enableHTTP2: false` (with it, libcurl waits for the busy HTTP/1.1 connection instead of
    ///   opening a second one).
    init(
        _ label: String,
        storeConfiguration: CacheStore.Configuration = .init(),
        transport: CurlHTTPClient.Configuration = .init()
    ) async throws {
        tenant = try await FixtureServer.tenant(label)
        store = try CacheStore(configuration: storeConfiguration, clock: clock)
        client = try CurlHTTPClient(configuration: transport)
    }

    func service(
        for user: FixtureTenant.User = .alice,
        session: String? = nil,
        configuration: APIService.Configuration = .init()
    ) -> APIService {
        APIService(
            baseURL: tenant.baseURL,
            client: client,
            cache: CacheManager(store: store, scope: .session(session ?? user.rawValue)),
            credentials: .bearer(user.token),
            configuration: configuration,
            clock: clock
        )
    }

    func counters() async throws -> FixtureCounters { try await tenant.counters() }
}

extension Result {
    /// The success value, or a thrown failure for `try` in tests.
    func value() throws -> Success { try get() }

    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
