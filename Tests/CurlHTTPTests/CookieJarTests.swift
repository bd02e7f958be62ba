import CurlHTTP
import FixtureSupport
import Foundation
import Synchronization
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

    @Test("a jar holds no libcurl store until an upstream sets a cookie, and tells of the store once")
    func storeOnFirstCookie() async throws {
        let tenant = try await FixtureServer.tenant("jarlazy")
        let client = try CurlHTTPClient()
        let made = Mutex(0)
        let jar = CookieJar(onStoreMade: { made.withLock { $0 += 1 } })
        #expect(try await cookiesSeenByServer(client, tenant, jar: jar).isEmpty)
        #expect(!jar.holdsStore)
        #expect(jar.cookies().isEmpty)
        jar.clear()
        #expect(!jar.holdsStore)

        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=sid&value=first"), cookieJar: jar))
        #expect(jar.holdsStore)
        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=other&value=second"), cookieJar: jar))
        #expect(made.withLock { $0 } == 1)
        #expect(try await cookiesSeenByServer(client, tenant, jar: jar) == ["sid": "first", "other": "second"])
    }

    @Test("a retired jar drops the cookies that arrive later and makes no store; retiring says whether one was made")
    func retiredJarDropsLateCookies() async throws {
        let tenant = try await FixtureServer.tenant("jarretired")
        let client = try CurlHTTPClient()
        let accounting = StoreCounter()
        let unused = CookieJar(accounting: accounting)
        #expect(unused.retire() == false)
        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=sid&value=late"), cookieJar: unused))
        #expect(!unused.holdsStore)
        #expect(unused.cookies().isEmpty)

        let used = CookieJar(accounting: accounting)
        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=sid&value=kept"), cookieJar: used))
        #expect(accounting.count == 1)
        #expect(used.retire() == true)
        _ = try await client.execute(.init(url: tenant.url("/api/cookies/set?name=other&value=late"), cookieJar: used))
        #expect(used.cookies().map(\.name) == ["sid"])
        #expect(accounting.count == 1)
    }

    @Test("a cookie for another domain is refused by libcurl's checks on a jar's first answer too")
    func foreignDomainRefused() async throws {
        let tenant = try await FixtureServer.tenant("jarforeign")
        let client = try CurlHTTPClient()
        let foreignOnly = CookieJar()
        let setForeign = "set_header=Set-Cookie:evil%3D1%3B%20Domain%3Dexample.com%3B%20Path%3D%2F"
        _ = try await client.execute(.init(url: tenant.url("/api/echo?\(setForeign)"), cookieJar: foreignOnly))
        #expect(!foreignOnly.holdsStore)
        #expect(foreignOnly.cookies().isEmpty)

        let mixed = CookieJar()
        let setGood = "set_header=Set-Cookie:good%3D1%3B%20Path%3D%2F"
        _ = try await client.execute(.init(url: tenant.url("/api/echo?\(setForeign)&\(setGood)"), cookieJar: mixed))
        #expect(mixed.cookies().map(\.name) == ["good"])
        #expect(try await cookiesSeenByServer(client, tenant, jar: mixed) == ["good": "1"])
    }

    @Test("the handle that parsed a jar's first cookie carries it to no later request of another jar or none")
    func firstCookieStaysWithItsJar() async throws {
        let tenant = try await FixtureServer.tenant("jarhandle")
        let client = try CurlHTTPClient()
        let alice = CookieJar()
        _ = try await client.execute(
            .init(url: tenant.url("/api/cookies/set?name=session&value=alice"), cookieJar: alice))
        #expect(try await cookiesSeenByServer(client, tenant, jar: nil).isEmpty)
        let bob = CookieJar()
        #expect(try await cookiesSeenByServer(client, tenant, jar: bob).isEmpty)
        #expect(!bob.holdsStore)
        #expect(try await cookiesSeenByServer(client, tenant, jar: alice) == ["session": "alice"])
    }
}

/// Counts the stores its jars made.
private final class StoreCounter: CookieStoreAccounting {
    private let made = Mutex(0)

    var count: Int { made.withLock { $0 } }

    func cookieStoreMade() {
        made.withLock { $0 += 1 }
    }
}
