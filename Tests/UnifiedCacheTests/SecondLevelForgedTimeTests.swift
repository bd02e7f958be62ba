import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import GraphQLCache
@testable import UnifiedCache

/// Second-level values written by hand in the documented layout, as someone who can write one key in the fleet's
/// Redis would: every time field a finite double, the rest valid.
enum HandMadeValue {
    static func double(_ value: Double) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value.bitPattern >> ($0 * 8)) }
    }

    static func uint32(_ value: Int) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// Magic `UC2L`, version 1, `kind`, then stored-at and the optional expires-at.
    static func prefix(kind: UInt8, storedAt: Double, expiresAt: Double?) -> [UInt8] {
        var bytes = Array("UC2L".utf8) + [1, kind]
        if kind == 1 { bytes += [0, 200] }  // REST: status 200
        bytes += double(storedAt)
        if let expiresAt { bytes += [1] + double(expiresAt) } else { bytes += [0] }
        return bytes
    }

    /// A REST value (kind 1, status 200) with a timeout of `timeout` seconds, no validators, no labels.
    static func rest(storedAt: Double, expiresAt: Double?, timeout: Double = 60, body: String) -> [UInt8] {
        var bytes = prefix(kind: 1, storedAt: storedAt, expiresAt: expiresAt)
        bytes += [1] + double(timeout)
        bytes += [0, 0, 0]  // not uplifted, no ETag, no Last-Modified
        for _ in 0..<4 { bytes += uint32(0) }  // domains, accounts, entity keys, tags
        bytes += uint32(body.utf8.count) + Array(body.utf8)
        return bytes
    }

    /// A GraphQL value (kind 2).
    static func graphQL(storedAt: Double, expiresAt: Double?, data: [UInt8]) -> [UInt8] {
        prefix(kind: 2, storedAt: storedAt, expiresAt: expiresAt) + uint32(data.count) + data
    }
}

@Suite("Hand-made second-level values with absurd times: a counted miss or a capped lifetime, never a trap")
struct SecondLevelForgedTimeTests {
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name balance } }", operationName: "AccountSummary")
    private static let body = #"{"accounts":[{"id":"forged"}]}"#
    private static let year9000: Double = 221_845_392_000

    /// Writes `bytes` under the REST entry of `accounts` in alice's namespace, through the store itself.
    private func plant(_ bytes: [UInt8], _ harness: SecondLevelHarness) async throws {
        let front = try #require(harness.a.secondLevel)
        let key = front.names.key(.rest, accounts.key, in: harness.session(harness.a, .alice).scope)
        guard case .miss(let generation) = await front.store.read(key, deadline: .seconds(2)) else {
            Issue.record("the empty second level should answer a miss")
            return
        }
        // Sealed with the fleet key, as a replica with a wrong clock or an old format, or a key compromise, would.
        front.write(bytes, kind: .rest, for: key, generation: generation, timeToLive: .seconds(600), tags: [])
        try await harness.waitForWrites(harness.a, 1)
    }

    /// Reads alice's `accounts` on B: it must go upstream, with the value counted as unusable.
    private func expectCountedMiss(_ harness: SecondLevelHarness) async throws {
        let answer = try await harness.session(harness.b, .alice).source(of: accounts)
        #expect(answer.source == .network)
        #expect(harness.b.secondLevelStatistics?.unusable == 1)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        #expect(harness.b.metricsText().contains("ucache_l2_unusable_total 1"))
    }

    @Test("the issue's value (stored-at -1e300, the rest valid) is a miss, counted, and the upstream answers")
    func storedAtMinus1e300() async throws {
        let harness = try await SecondLevelHarness("l2-forged-past")
        defer { Task { await harness.shutdown() } }
        let now = harness.clock.wallClockNow().timeIntervalSince1970
        try await plant(HandMadeValue.rest(storedAt: -1e300, expiresAt: now + 60, body: Self.body), harness)
        try await expectCountedMiss(harness)
    }

    @Test("an expiry of 1e300 is a miss, counted, not an answer served to the end of time")
    func expiry1e300() async throws {
        let harness = try await SecondLevelHarness("l2-forged-expiry")
        defer { Task { await harness.shutdown() } }
        let now = harness.clock.wallClockNow().timeIntervalSince1970
        try await plant(HandMadeValue.rest(storedAt: now, expiresAt: 1e300, body: Self.body), harness)
        try await expectCountedMiss(harness)
    }

    @Test("stored-at +infinity, NaN, or far ahead of this replica's clock is a miss, counted")
    func storedAtNotFiniteOrAhead() async throws {
        for (index, storedAt) in [Double.infinity, .nan, Self.year9000].enumerated() {
            let harness = try await SecondLevelHarness("l2-forged-ahead-\(index)")
            try await plant(
                HandMadeValue.rest(storedAt: storedAt, expiresAt: Self.year9000 + 60, body: Self.body), harness)
            try await expectCountedMiss(harness)
            await harness.shutdown()
        }
    }

    @Test("an expiry in year 9000 is capped by the stored timeout: fresh for 60 s, then the upstream is asked")
    func expiryCappedByTimeout() async throws {
        let harness = try await SecondLevelHarness("l2-forged-capped")
        defer { Task { await harness.shutdown() } }
        let now = harness.clock.wallClockNow().timeIntervalSince1970
        try await plant(
            HandMadeValue.rest(storedAt: now, expiresAt: Self.year9000, timeout: 60, body: Self.body), harness)

        let hit = try await harness.session(harness.a, .alice).source(of: accounts)
        #expect(hit.source == .cache)
        #expect(hit.age == .zero)
        harness.clock.advance(seconds: 59)
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)
        harness.clock.advance(seconds: 1)

        #expect(try await harness.session(harness.a, .alice).source(of: accounts).source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        #expect(harness.a.secondLevelStatistics?.unusable == 0)
    }

    /// Lets A fetch `summary` for alice, then replaces its second-level value with `forge(data)`.
    private func plantGraphQL(
        _ harness: SecondLevelHarness, _ forge: ([UInt8]) -> [UInt8]
    ) async throws {
        let onA = harness.session(harness.a, .alice)
        #expect(try await onA.graphQL.fetch(operation: summary).get().source == .network)
        try await harness.waitForWrites(harness.a, 1)
        let front = try #require(harness.a.secondLevel)
        let request = try onA.graphQL.prepareUntyped(summary, kind: .query, explicitTimeout: nil)
        let key = front.names.key(.graphQL, onA.graphQL.secondLevelKey(request).text, in: onA.scope)
        guard case .hit(let sealed, let generation) = await front.store.read(key, deadline: .seconds(2)),
            case .success(let bytes) = front.sealing.open(sealed, for: front.binding(key, .graphQL, generation)),
            let written = SecondLevelEntryCodec.decodeGraphQL(bytes)
        else {
            Issue.record("A's result should be in the second level")
            return
        }
        front.write(
            forge(written.data), kind: .graphQL, for: key, generation: generation, timeToLive: .seconds(600), tags: [])
        try await harness.waitForWrites(harness.a, 2)
    }

    @Test("a GraphQL value with stored-at -1e300 or an expiry of 1e300 is a miss, counted")
    func graphQLAbsurdTimes() async throws {
        for (index, times) in [(-1e300, 1_700_000_060.0), (1_700_000_000, 1e300)].enumerated() {
            let harness = try await SecondLevelHarness("l2-forged-graphql-\(index)")
            try await plantGraphQL(harness) {
                HandMadeValue.graphQL(storedAt: times.0, expiresAt: times.1, data: $0)
            }

            let answer = try await harness.session(harness.b, .alice).graphQL.fetch(operation: summary).get()

            #expect(answer.source == .network)
            #expect(harness.b.secondLevelStatistics?.unusable == 1)
            #expect(try await harness.counters().operation("AccountSummary") == 2)
            await harness.shutdown()
        }
    }

    @Test("a GraphQL expiry in year 9000 is capped by the reader's own lifetime (300 s), then the upstream is asked")
    func graphQLExpiryCapped() async throws {
        let harness = try await SecondLevelHarness("l2-forged-graphql-capped")
        defer { Task { await harness.shutdown() } }
        let now = harness.clock.wallClockNow().timeIntervalSince1970
        try await plantGraphQL(harness) { HandMadeValue.graphQL(storedAt: now, expiresAt: Self.year9000, data: $0) }
        harness.clock.advance(seconds: 299)
        #expect(try await harness.session(harness.b, .alice).graphQL.fetch(operation: summary).get().source == .cache)
        harness.clock.advance(seconds: 2)

        // A's own copy is stale now (300 s after its fetch), so A asks the second level again.
        #expect(try await harness.session(harness.a, .alice).graphQL.fetch(operation: summary).get().source == .network)
        #expect(try await harness.counters().operation("AccountSummary") == 2)
        #expect(harness.b.secondLevelStatistics?.unusable == 0)
    }
}
