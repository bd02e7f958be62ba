import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Cookie jars")
struct CookieJarTests {
    private func cookiesSeenByServer(_ client: CurlHTTPClient, _ tenant: FixtureTenant, jar: CookieJar?) async throws
        -> [String: String]
    {
        let response = try await client.execute(.init(url: tenant.url("/api/cookies"), cookieJar: jar))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return object?["cookies"] as? [String: String] ?? [:]
    }

    @Test("a jar stores what the upstream sets and sends it back")
    func jarRoundTrip() async throws {
        let tenant = try await FixtureServer.tenant("jar")
        let client = try CurlHTTPClient()
        let jar = CookieJar()
        _ = try await client.execute(
            .init(url: tenant.url("/api/cookies/set?name=session&value=alice-123"), cookieJar: jar))
        #expect(jar.cookies().map(\.name) == ["session"])
        #expect(try await cookiesSeenByServer(client, tenant, jar: jar) == ["session": "alice-123"])
    }

    @Test("two jars never see each other's cookies, and a request without a jar sends none")
    func jarsAreIsolated() async throws {
        let tenant = try await FixtureServer.tenant("jars")
        let client = try CurlHTTPClient()
        let alice = CookieJar()
        let bob = CookieJar()
        _ = try await client.execute(
            .init(url: tenant.url("/api/cookies/set?name=session&value=alice"), cookieJar: alice))
        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=session&value=bob"), cookieJar: bob))
        _ = try await client.execute(
            .init(url: tenant.url("/api/cookies/set?name=extra&value=bob-only"), cookieJar: bob))

        #expect(try await cookiesSeenByServer(client, tenant, jar: alice) == ["session": "alice"])
        #expect(try await cookiesSeenByServer(client, tenant, jar: bob) == ["session": "bob", "extra": "bob-only"])
        #expect(try await cookiesSeenByServer(client, tenant, jar: nil).isEmpty)
    }

    @Test("clearing a jar forgets its cookies and leaves other jars alone")
    func clearingAJar() async throws {
        let tenant = try await FixtureServer.tenant("jarclear")
        let client = try CurlHTTPClient()
        let alice = CookieJar()
        let bob = CookieJar()
        _ = try await client.execute(
            .init(url: tenant.url("/api/cookies/set?name=session&value=alice"), cookieJar: alice))
        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=session&value=bob"), cookieJar: bob))

        alice.clear()
        #expect(alice.cookies().isEmpty)
        #expect(try await cookiesSeenByServer(client, tenant, jar: alice).isEmpty)
        #expect(try await cookiesSeenByServer(client, tenant, jar: bob) == ["session": "bob"])
    }

    @Test("a jar's description never prints cookie values")
    func descriptionHidesValues() async throws {
        let tenant = try await FixtureServer.tenant("jardesc")
        let client = try CurlHTTPClient()
        let jar = CookieJar()
        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=sid&value=s3cr3t"), cookieJar: jar))
        #expect(!String(describing: jar).contains("s3cr3t"))
        #expect(!jar.cookies().map(String.init(describing:)).joined().contains("s3cr3t"))
    }
}
