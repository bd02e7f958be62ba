import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// Someone who can read and write the fleet's Redis keyspace but does not know the fleet secret, acting through a
/// connection of their own: every value they move, alter, forge or inflate is a miss and a counted rejection, and
/// the user gets their own answer from the upstream.
@Suite("A Redis writer without the fleet secret never makes a replica serve a wrong answer")
struct SecondLevelAttackTests {
    private let accounts = AccountIDs()

    @Test("alice's value copied onto bob's key is refused; bob gets his own accounts from the upstream")
    func copiedToAnotherUsersKey() async throws {
        let harness = try await SecondLevelHarness("l2-attack-copy")
        defer { Task { await harness.shutdown() } }
        let aliceIDs = try await harness.session(harness.a, .alice).answer(accounts)
        #expect(aliceIDs.source == .network)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let aliceValue = try #require(try attacker.valueKeys().first)

        let bob = harness.session(harness.b, .bob)
        let bobKey = try attacker.valueKey(of: bob.scope, accounts.key, in: harness.b)
        try attacker.copy(aliceValue, to: bobKey)
        let answer = try await bob.answer(accounts)

        #expect(answer.source == .network)
        #expect(answer.ids != aliceIDs.ids)
        #expect(harness.b.secondLevelStatistics?.rejected.unauthentic == 1)
        #expect(harness.b.secondLevelStatistics?.hits == 0)
        #expect(harness.b.secondLevelStatistics?.misses == 1)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
        let text = harness.b.metricsText()
        #expect(text.contains("ucache_l2_rejected_total{reason=\"unauthentic\"} 1\n"))
        #expect(text.contains("ucache_l2_rejected_total{reason=\"format\"} 0\n"))
        let json = try JSONSerialization.jsonObject(with: harness.b.metricsJSON()) as? [String: Any]
        let rejected = (json?["secondLevel"] as? [String: Any])?["rejected"] as? [String: Int]
        #expect(
            rejected == [
                "format": 0, "unauthentic": 1, "oversize": 0, "rollback": 0, "malformed": 0, "implausible": 0,
                "cleared": 0,
            ])
    }

    @Test("alice's value copied into the shared namespace is refused for every user")
    func copiedToTheSharedNamespace() async throws {
        let harness = try await SecondLevelHarness("l2-attack-shared")
        defer { Task { await harness.shutdown() } }
        let alice = try await harness.session(harness.a, .alice).answer(accounts)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let aliceValue = try #require(try attacker.valueKeys().first)

        // A shared read under the same L1 key: accounts have names, so alice's would even decode as flags.
        let shared = SharedNames(key: accounts.key)
        try attacker.copy(aliceValue, to: try attacker.valueKey(of: .shared, shared.key, in: harness.b))
        let answer = try await harness.session(harness.b, .bob).rest.performWithSource(with: shared).get()

        #expect(answer.source == .network)
        #expect(Set(answer.data.map(\.name)).isDisjoint(with: alice.names))
        #expect(harness.b.secondLevelStatistics?.rejected.unauthentic == 1)
    }

    @Test("a value restored into the generation after a logout is refused")
    func copiedAcrossALogout() async throws {
        let harness = try await SecondLevelHarness("l2-attack-logout")
        defer { Task { await harness.shutdown() } }
        let alice = harness.session(harness.a, .alice)
        _ = try await alice.answer(accounts)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let before = try #require(try attacker.valueKeys().first)
        let saved = try #require(try attacker.value(before))
        let namespace = try #require(harness.b.secondLevel).names.namespace(of: alice.scope)
        let tokenBefore = try attacker.token(namespace)

        _ = await harness.a.endSession(id: "session-alice")
        let after = try attacker.valueKey(of: alice.scope, accounts.key, in: harness.b)
        let tokenAfter = try attacker.token(namespace)
        #expect(tokenAfter != tokenBefore)  // the logout moved the generation: the old value is no longer read
        try attacker.setValue(after, saved, generation: tokenAfter)
        let answer = try await harness.session(harness.b, .alice).answer(accounts)

        #expect(answer.source == .network)
        #expect(harness.b.secondLevelStatistics?.rejected.unauthentic == 1)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("a generation key set back after a logout: replicas that saw the logout refuse the old values")
    func generationSetBack() async throws {
        let harness = try await SecondLevelHarness("l2-attack-rollback", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).answer(accounts)
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await harness.session(harness.b, .alice).answer(accounts).source == .cache)
        let attacker = try RedisAttacker(harness)
        let scope = harness.session(harness.a, .alice).scope
        let generationKey = try attacker.generationKey(of: scope, in: harness.a)
        let old = try attacker.get(generationKey)

        _ = await harness.a.endSession(id: "session-alice")
        try await harness.waitUntilApplied(harness.b, 1)
        #expect(try attacker.get(generationKey) != old)
        if let old { try attacker.set(generationKey, old) } else { try attacker.delete(generationKey) }

        for hub in [harness.a, harness.b] {
            let answer = try await harness.session(hub, .alice).answer(accounts)
            #expect(answer.source == .network)
            #expect(hub.secondLevelStatistics?.rejected.rollback == 1)
        }
        #expect(try await harness.counters().route("GET /api/accounts") == 3)
    }

    @Test("a value with one byte flipped is refused and replaced by the upstream's answer")
    func flippedByte() async throws {
        let harness = try await SecondLevelHarness("l2-attack-flip")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).answer(accounts)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let key = try #require(try attacker.valueKeys().first)
        var value = try #require(try attacker.value(key))
        value[SecondLevelSealing.headerLength + 3] ^= 0x01
        try attacker.setValue(key, value)

        #expect(try await harness.session(harness.b, .alice).answer(accounts).source == .network)
        #expect(harness.b.secondLevelStatistics?.rejected.unauthentic == 1)
        try await harness.waitForWrites(harness.b, 1)
        #expect(try attacker.value(key) != value)  // the fresh answer replaced it
    }

    @Test("forged shared values — random bytes, a well-formed header with a bad tag — are refused")
    func forgedSharedValues() async throws {
        let harness = try await SecondLevelHarness("l2-attack-forge")
        defer { Task { await harness.shutdown() } }
        let attacker = try RedisAttacker(harness)
        let shared = SharedNames(key: "featureFlags.all")
        let key = try attacker.valueKey(of: .shared, shared.key, in: harness.b)
        let keyID = try #require(harness.b.secondLevel?.configuration.secret.ring.current.id)
        let header = SecondLevelSealing.magic + [SecondLevelSealing.version] + keyID + Array(repeating: 7, count: 24)
        let forgeries: [(value: [UInt8], hub: CacheHub)] = [
            ((0..<200).map { _ in UInt8.random(in: 0...255) }, harness.a),
            (header + Array(repeating: 0x41, count: 100), harness.b),
        ]

        for forgery in forgeries {
            try attacker.setValue(key, forgery.value)
            let answer = try await harness.session(forgery.hub, .carol).rest.performWithSource(with: shared).get()
            #expect(answer.source == .network)
            try await harness.waitForWrites(forgery.hub, 1)  // the fresh answer replaced the forgery
        }

        #expect(harness.a.secondLevelStatistics?.rejected.format == 1)
        #expect(harness.b.secondLevelStatistics?.rejected.unauthentic == 1)
        #expect(try await harness.counters().route("GET /api/feature-flags") == 2)
    }

    @Test("an oversize value is refused before any cryptography, even one sealed with the fleet's key")
    func oversize() async throws {
        let harness = try await SecondLevelHarness("l2-attack-oversize")
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        let attacker = try RedisAttacker(harness)
        let alice = harness.session(harness.b, .alice)
        let key = front.names.key(.rest, accounts.key, in: alice.scope)
        let generation = SecondLevelGeneration(token: "0.0")
        let huge = front.sealing.seal(
            Array(repeating: 0x20, count: front.store.maximumValueBytes), for: front.binding(key, .rest, generation))
        try attacker.setValue(attacker.valueKey(key, generation), huge, generation: generation.token)

        #expect(try await alice.answer(accounts).source == .network)
        #expect(front.statistics().rejected.oversize == 1)
        #expect(front.statistics().unusable == 0)  // never opened, so never decoded
    }

    @Test("a plaintext value of the previous format is a miss and a rejection, never served")
    func previousFormat() async throws {
        let harness = try await SecondLevelHarness("l2-attack-v1")
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        let attacker = try RedisAttacker(harness)
        let alice = harness.session(harness.b, .alice)
        let key = front.names.key(.rest, accounts.key, in: alice.scope)
        let plaintext = SecondLevelEntryCodec.encode(
            RESTSecondLevelEntry(
                status: 200, body: Data(#"[{"id":"999"}]"#.utf8), storedAt: harness.clock.wallClockNow(),
                expiresAt: harness.clock.wallClockNow().addingTimeInterval(600),
                metadata: CacheEntryMetadata(timeout: .seconds(600))))
        #expect(plaintext.starts(with: Array("UC2L".utf8)))
        try attacker.setValue(attacker.valueKey(key, SecondLevelGeneration(token: "0.0")), plaintext, generation: "0.0")

        let answer = try await alice.answer(accounts)
        #expect(answer.source == .network)
        #expect(answer.ids != ["999"])
        #expect(front.statistics().rejected.format == 1)
    }
}

/// `GET /api/accounts`, keeping only the account ids and names (whose they are is the point).
struct AccountIDs: RequestType {
    struct Account: Decodable, Sendable {
        var id: String
        var name: String
    }
    typealias Response = [Account]
    var path: String { "/api/accounts" }
    var key: String { "accountSummary.list" }
    var cache: RequestCache? { RequestCache(key: key, timeout: .seconds(600)) }
}

/// `GET /api/feature-flags` (public) in the shared scope under a key of the caller's choosing: only the names.
struct SharedNames: RequestType {
    struct Named: Decodable, Sendable { var name: String }
    typealias Response = [Named]
    var key: String
    var path: String { "/api/feature-flags" }
    var cache: RequestCache? { RequestCache(key: key, timeout: .seconds(600), isShared: true) }
}

extension CacheSession {
    /// The account ids and names of a read and where they came from.
    func answer(_ request: AccountIDs) async throws -> (ids: [String], names: Set<String>, source: ResponseSource) {
        let answer = try await rest.performWithSource(with: request).get()
        return (answer.data.map(\.id), Set(answer.data.map(\.name)), answer.source)
    }
}

/// The attacker's own connection to the fleet's Redis: it sees every key and can write any, but has no secret.
/// What it needs of the names it takes from the hubs, as it would find them by watching (SCAN, MONITOR).
final class RedisAttacker {
    private let connection: RedisConnection
    let prefix: String

    init(_ harness: SecondLevelHarness) throws {
        connection = try RedisConnection(try RedisReplicationConfiguration(url: harness.redisURL))
        prefix = try #require(harness.a.secondLevel?.store.keyPrefix)
    }

    func run(_ arguments: [[UInt8]]) throws -> RedisReply {
        try connection.command(arguments)
    }

    /// Every value key of the fleet (SCAN).
    func valueKeys() throws -> [String] {
        var cursor = "0"
        var keys: [String] = []
        repeat {
            let reply = try run(["SCAN", cursor, "MATCH", "\(prefix){*}v:*", "COUNT", "1000"].map { Array($0.utf8) })
            guard case .array(let parts) = reply, parts.count == 2, case .string(let next) = parts[0],
                case .array(let found) = parts[1]
            else { throw RedisAttackerError() }
            cursor = String(decoding: next, as: UTF8.self)
            for case .string(let key) in found { keys.append(String(decoding: key, as: UTF8.self)) }
        } while cursor != "0"
        return keys
    }

    func get(_ key: String) throws -> [UInt8]? {
        if case .string(let value) = try run([Array("GET".utf8), Array(key.utf8)]) { return value }
        return nil
    }

    /// The bytes of a value key (a hash: `g` the generation it was written under, `d` the bytes).
    func value(_ key: String) throws -> [UInt8]? {
        if case .string(let value) = try run(["HGET", key, "d"].map { Array($0.utf8) }) { return value }
        return nil
    }

    /// Writes the bytes of a value key, under the generation of `token` (default: the one it has, or 0).
    func setValue(_ key: String, _ value: [UInt8], generation token: String? = nil) throws {
        var generation = "0"
        if let token, let dot = token.firstIndex(of: ".") {
            generation = String(token[token.index(after: dot)...])
        } else if case .string(let current) = try run(["HGET", key, "g"].map { Array($0.utf8) }) {
            generation = String(decoding: current, as: UTF8.self)
        }
        _ = try run([
            Array("HSET".utf8), Array(key.utf8), Array("g".utf8), Array(generation.utf8), Array("d".utf8), value,
        ])
    }

    func set(_ key: String, _ value: [UInt8]) throws {
        _ = try run([Array("SET".utf8), Array(key.utf8), value])
    }

    func delete(_ key: String) throws {
        _ = try run([Array("DEL".utf8), Array(key.utf8)])
    }

    func copy(_ source: String, to destination: String) throws {
        guard case .integer(1) = try run(["COPY", source, destination, "REPLACE"].map { Array($0.utf8) }) else {
            throw RedisAttackerError()
        }
    }

    /// The token a read of `namespace` returns now: `<epoch>.<generation>`.
    func token(_ namespace: SecondLevelNamespace) throws -> String {
        let epoch = try get("\(prefix)e").map { String(decoding: $0, as: UTF8.self) } ?? "0"
        let generation = try get("\(prefix){\(namespace.name)}g").map { String(decoding: $0, as: UTF8.self) } ?? "0"
        return "\(epoch).\(generation)"
    }

    func valueKey(_ key: SecondLevelKey, _ generation: SecondLevelGeneration) -> String {
        let epoch = generation.token.split(separator: ".").first.map(String.init) ?? "0"
        return "\(prefix){\(key.namespace.name)}v:\(epoch):\(key.name)"
    }

    /// Where `hub` reads `cacheKey` of `scope` now.
    func valueKey(of scope: CacheScope, _ cacheKey: String, in hub: CacheHub) throws -> String {
        let front = try #require(hub.secondLevel)
        let key = front.names.key(.rest, cacheKey, in: scope)
        return valueKey(key, SecondLevelGeneration(token: try token(key.namespace)))
    }

    func generationKey(of scope: CacheScope, in hub: CacheHub) throws -> String {
        "\(prefix){\(try #require(hub.secondLevel).names.namespace(of: scope).name)}g"
    }
}

struct RedisAttackerError: Error {}
