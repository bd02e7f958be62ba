import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Upstream caching headers")
struct HTTPSemanticsTests {
    @Test("an expired entry with an ETag is revalidated: a 304 refreshes it without a body")
    func etagRevalidation() async throws {
        let harness = try await Harness("etag")
        let service = harness.service()
        let first = try await service.performWithSource(with: ProfileRequest()).value()
        harness.clock.advance(by: .seconds(61))  // past the upstream's max-age=60
        let second = try await service.performWithSource(with: ProfileRequest()).value()
        #expect(second.source == .network)
        #expect(second.wasRevalidated)
        #expect(second.data == first.data)
        #expect(try await harness.counters().statuses["304"] == 1)
        // Fresh again after the 304: no further request.
        #expect(try await service.performWithSource(with: ProfileRequest()).value().source == .cache)
        #expect(try await harness.counters().route("GET /api/profile") == 2)
    }

    @Test("after the resource changes, revalidation returns the new body")
    func revalidationAfterChange() async throws {
        let harness = try await Harness("etagchange")
        let service = harness.service()
        _ = try await service.perform(with: ProfileRequest()).value()
        _ = try await harness.client.execute(
            .init(
                method: .patch,
                url: harness.tenant.url("/api/profile"),
                headers: ["Authorization": "Bearer token-alice", "Content-Type": "application/json"],
                body: Data(#"{"displayName":"Alice N."}"#.utf8)
            ))
        harness.clock.advance(by: .seconds(61))
        let refreshed = try await service.performWithSource(with: ProfileRequest()).value()
        #expect(!refreshed.wasRevalidated)
        #expect(refreshed.data.displayName == "Alice N.")
    }

    @Test("max-age caps the request's own timeout")
    func maxAgeCapsTimeout() async throws {
        let harness = try await Harness("maxage")
        let service = harness.service()
        _ = try await service.perform(with: BalanceRequest(accountId: "101", timeout: .seconds(600))).value()
        harness.clock.advance(by: .seconds(31))  // the upstream said max-age=30
        let read = await service.performWithSource(with: BalanceRequest(accountId: "101", timeout: .seconds(600)))
        #expect(try read.value().source == .network)
    }

    @Test("no-store answers are never stored")
    func noStore() async throws {
        let harness = try await Harness("nostore")
        let service = harness.service()
        _ = try await service.perform(with: NotificationsRequest()).value()
        _ = try await service.perform(with: NotificationsRequest()).value()
        #expect(try await harness.counters().route("GET /api/notifications") == 2)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("a private answer is never stored in the shared scope")
    func privateNeverShared() async throws {
        let harness = try await Harness("private")
        let service = harness.service()
        let request = RawRequest<[Account]>(
            path: "/api/accounts",
            cache: RequestCache(key: "misdeclared.shared.accounts", timeout: .seconds(60), isShared: true)
        )
        // Sent without credentials (shared), so the fixture refuses it — and nothing may be stored anyway.
        _ = await service.perform(with: request)
        #expect(harness.store.entryCount(in: .shared) == 0)

        let echo = RawRequest<EmptyResponse>(
            path: "/api/echo",
            queryItems: [QueryItem("set_header", "Cache-Control:private, max-age=60")],
            cache: RequestCache(key: "echo.private", timeout: .seconds(60), isShared: true)
        )
        _ = try await service.perform(with: echo).value()
        #expect(harness.store.entryCount(in: .shared) == 0)
    }

    @Test("Vary keeps one entry per varying header value")
    func varyAddsHeadersToTheKey() async throws {
        let harness = try await Harness("vary")
        let service = harness.service()
        let english = try await service.perform(with: OffersRequest(language: "en")).value()
        let french = try await service.perform(with: OffersRequest(language: "fr")).value()
        #expect(english.first?.title != french.first?.title)
        #expect(try await service.performWithSource(with: OffersRequest(language: "en")).value().data == english)
        #expect(try await service.performWithSource(with: OffersRequest(language: "fr")).value().source == .cache)
        #expect(try await harness.counters().route("GET /api/offers") == 2)
    }

    @Test("Vary: * is never stored")
    func varyStar() async throws {
        let harness = try await Harness("varystar")
        let service = harness.service()
        let echo = RawRequest<EmptyResponse>(
            path: "/api/echo",
            queryItems: [QueryItem("set_header", "Vary:*")],
            cache: RequestCache(key: "echo.varystar", timeout: .seconds(60))
        )
        _ = try await service.perform(with: echo).value()
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }
}
