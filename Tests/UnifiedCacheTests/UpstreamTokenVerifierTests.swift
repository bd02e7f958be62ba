import CurlHTTP
import FixtureSupport
import Synchronization
import Testing
import UnifiedCache

@Suite("The token verifier asks the upstream once per token and remembers the verdict")
struct UpstreamTokenVerifierTests {
    private let profileRoute = "GET /api/profile"

    private struct Harness {
        let tenant: FixtureTenant
        let clock = ManualCacheClock()
        let client: CurlHTTPClient
        let verifier: UpstreamTokenVerifier

        init(_ label: String, maximumVerdicts: Int = 100) async throws {
            tenant = try await FixtureServer.tenant(label)
            client = try CurlHTTPClient()
            verifier = UpstreamTokenVerifier(
                configuration: .init(
                    url: tenant.url("/api/profile"), acceptedFor: .seconds(60), rejectedFor: .seconds(10),
                    maximumVerdicts: maximumVerdicts),
                client: client, clock: clock)
        }

        func calls(_ route: String) async throws -> Int { try await tenant.counters().route(route) }
    }

    private func rejection(_ body: () async throws(UnifiedCacheError) -> VerifiedPrincipal) async -> UnifiedCacheError?
    {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test("many concurrent verifications of one token make one upstream call and all get its owner")
    func concurrentVerificationsShareOneCall() async throws {
        let harness = try await Harness("verifyshared")
        try await harness.tenant.holdAnswers(route: profileRoute)
        let started = StartedCount()
        let principals = try await withThrowingTaskGroup(of: VerifiedPrincipal.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    started.count.add(1, ordering: .relaxed)
                    return try await harness.verifier.principal(authorization: "Bearer token-alice")
                }
            }
            try await waitUntil { try await harness.calls(profileRoute) >= 1 }
            try await waitUntil { started.count.load(ordering: .relaxed) == 20 }
            try await harness.tenant.releaseHeldAnswers()
            return try await group.reduce(into: [VerifiedPrincipal]()) { $0.append($1) }
        }
        #expect(principals == Array(repeating: VerifiedPrincipal("alice"), count: 20))
        #expect(try await harness.calls(profileRoute) == 1)
        #expect(harness.verifier.upstreamCalls == 1)
    }

    @Test("two users' tokens give two principals; a remembered verdict is used until the clock passes its lifetime")
    func verdictExpiresOnTheClock() async throws {
        let harness = try await Harness("verifyexpiry")
        #expect(try await harness.verifier.principal(token: "token-alice") == VerifiedPrincipal("alice"))
        #expect(try await harness.verifier.principal(token: "token-bob") == VerifiedPrincipal("bob"))
        #expect(try await harness.verifier.principal(token: "token-alice") == VerifiedPrincipal("alice"))
        #expect(try await harness.calls(profileRoute) == 2)

        harness.clock.advance(by: .seconds(59))
        #expect(try await harness.verifier.principal(token: "token-alice") == VerifiedPrincipal("alice"))
        #expect(try await harness.calls(profileRoute) == 2)

        harness.clock.advance(by: .seconds(2))
        #expect(try await harness.verifier.principal(token: "token-alice") == VerifiedPrincipal("alice"))
        #expect(try await harness.calls(profileRoute) == 3)
    }

    @Test("a token the upstream refuses is a typed rejection, remembered for its own shorter lifetime")
    func rejectedTokenIsATypedError() async throws {
        let harness = try await Harness("verifyreject")
        let first = await rejection { () throws(UnifiedCacheError) in
            try await harness.verifier.principal(authorization: "Bearer token-nobody")
        }
        #expect(first?.code == .tokenRejected)
        let second = await rejection { () throws(UnifiedCacheError) in
            try await harness.verifier.principal(token: "token-nobody")
        }
        #expect(second?.code == .tokenRejected)
        #expect(try await harness.calls(profileRoute) == 1)
        #expect(first.map { "\($0)" }?.contains("token-nobody") == false)

        harness.clock.advance(by: .seconds(11))
        _ = await rejection { () throws(UnifiedCacheError) in
            try await harness.verifier.principal(token: "token-nobody")
        }
        #expect(try await harness.calls(profileRoute) == 2)
    }

    @Test("a missing, foreign-scheme or malformed credential is rejected without asking the upstream")
    func malformedCredentialsAreRejectedLocally() async throws {
        let harness = try await Harness("verifymalformed")
        for authorization in [nil, "", "Basic dXNlcjpwYXNz", "Bearer ", "Bearer a b", "Bearer tok\u{7F}en"] {
            let error = await rejection { () throws(UnifiedCacheError) in
                try await harness.verifier.principal(authorization: authorization)
            }
            #expect(error?.code == .tokenRejected, "\(String(describing: authorization))")
        }
        #expect(UpstreamTokenVerifier.bearerToken("bEaReR \t token-alice ") == "token-alice")
        #expect(try await harness.calls(profileRoute) == 0)
    }

    @Test("an upstream that cannot answer is a typed error and nothing is remembered: the next request asks again")
    func unavailableUpstreamIsNotRemembered() async throws {
        let harness = try await Harness("verifyunavailable")
        try await harness.tenant.inject(.status(503), route: profileRoute)
        let error = await rejection { () throws(UnifiedCacheError) in
            try await harness.verifier.principal(token: "token-alice")
        }
        #expect(error?.code == .tokenVerificationUnavailable)
        #expect(harness.verifier.rememberedCount == 0)
        #expect(try await harness.verifier.principal(token: "token-alice") == VerifiedPrincipal("alice"))
        #expect(try await harness.calls(profileRoute) == 2)
    }

    @Test("forgetting a token at logout makes the next verification ask the upstream again")
    func forgottenTokenIsAskedAgain() async throws {
        let harness = try await Harness("verifyforget")
        _ = try await harness.verifier.principal(token: "token-alice")
        _ = try await harness.verifier.principal(token: "token-bob")
        harness.verifier.forget(token: "token-alice")
        #expect(harness.verifier.rememberedCount == 1)
        _ = try await harness.verifier.principal(token: "token-alice")
        _ = try await harness.verifier.principal(token: "token-bob")
        #expect(try await harness.calls(profileRoute) == 3)
    }

    @Test("a token forgotten while its call is in flight: the waiter gets the answer, nothing is remembered")
    func forgetDuringFlightLeavesNothing() async throws {
        let harness = try await Harness("verifyforgetflight")
        try await harness.tenant.holdAnswers(route: profileRoute)
        let inFlight = Task { try await harness.verifier.principal(token: "token-alice") }
        try await waitUntil { try await harness.calls(profileRoute) == 1 }
        harness.verifier.forget(token: "token-alice")
        try await harness.tenant.releaseHeldAnswers()
        #expect(try await inFlight.value == VerifiedPrincipal("alice"))
        #expect(harness.verifier.rememberedCount == 0)
        _ = try await harness.verifier.principal(token: "token-alice")
        #expect(try await harness.calls(profileRoute) == 2)
    }

    @Test("the memory is bounded: past its bound, settled verdicts make room for new tokens")
    func memoryIsBounded() async throws {
        let harness = try await Harness("verifybounded", maximumVerdicts: 2)
        for user in [FixtureTenant.User.alice, .bob, .carol] {
            _ = try await harness.verifier.principal(token: user.token)
            #expect(harness.verifier.rememberedCount <= 2)
        }
        #expect(try await harness.verifier.principal(token: "token-carol") == VerifiedPrincipal("carol"))
        #expect(try await harness.calls(profileRoute) == 3)
    }
}

/// How many concurrent verifications have begun.
private final class StartedCount: Sendable {
    let count = Atomic<Int>(0)
}
