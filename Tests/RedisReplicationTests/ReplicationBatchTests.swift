import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// With ``ReplicationConfiguration/maximumClearsPerMessage`` above 1, clears queued together leave as one sealed
/// message (format v4): what must hold is that every clear still arrives, in order, that the batch is checked as a
/// whole, and that single-clear messages (format v3) are still applied.
@Suite("Replication batches: clears queued together travel under one seal")
struct ReplicationBatchTests {
    private let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")

    /// Two batching hubs on one channel whose replication clocks the test moves, and a listener on the channel.
    private struct BatchingFleet {
        let hubs: ClockedFleet
        let attacker: ChannelAttacker
        var a: CacheHub { hubs.a }
        var b: CacheHub { hubs.b }
        var clockA: ManualCacheClock { hubs.clockA }
        var clockB: ManualCacheClock { hubs.clockB }

        init(
            _ label: String, clears: Int = 64, maximumPayloadBytes: Int = 64 * 1024, window: Duration = .zero
        ) async throws {
            hubs = try await ClockedFleet(label, settings: .banking) {
                $0.maximumClearsPerMessage = clears
                $0.maximumPayloadBytes = maximumPayloadBytes
                $0.batchingWindow = window
            }
            attacker = try await ChannelAttacker(redisURL: hubs.url, channel: hubs.channel)
        }

        func alice(on hub: CacheHub) -> CacheSession { hubs.alice(on: hub) }

        /// The wire name of alice's session.
        func aliceHash() throws -> String {
            try #require(a.replication?.sessionHash(of: alice(on: a).scope))
        }

        func shutdown() async {
            await attacker.stop()
            await hubs.shutdown()
        }
    }

    /// The version byte of `payload` and the clears it holds, opened with the fleet secret.
    /// Waits until the attacker's listener heard `count` clears in all: it hears the channel beside B, so B having
    /// applied them says nothing of what it holds yet.
    private static func waitUntilHeard(_ count: Int, by attacker: ChannelAttacker) async throws {
        try await waitUntil {
            try attacker.listener.payloads.map(Self.opened).reduce(0) { $0 + $1.clears.count } >= count
        }
    }

    private static func opened(_ payload: [UInt8]) throws -> (version: UInt8, clears: [ReplicationMessage]) {
        let opener = ReplicationSealer(secret: try ReplicationSecret(Array(ReplicaHarness.secret.utf8)))
        guard case .message(let envelope, let plaintext) = opener.open(payload) else {
            throw FixtureError("a payload on the channel does not open")
        }
        if envelope.isBatch {
            let clears = try #require(ReplicationBatchCodec.decode(plaintext, maximumAgeOffset: 60_000))
            return (envelope.version, clears.map(\.message))
        }
        return (envelope.version, [try #require(ReplicationMessageCodec.decode(plaintext))])
    }

    private static func queries(_ count: Int, session: String) -> [ReplicationMessage] {
        (0..<count).map { ReplicationMessage(session: session, clear: .query("q\($0)")) }
    }

    @Test("clears queued together leave as one v4 message, and the other replica applies each of them, in order")
    func queuedTogetherLeaveAsOne() async throws {
        let fleet = try await BatchingFleet("batchone")
        let hash = try fleet.aliceHash()
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: balance).get()
        let sent =
            [ReplicationMessage(session: hash, clear: .domain(name: "balances", reason: "manual"))]
            + Self.queries(9, session: hash)

        try #require(fleet.a.replication).send(contentsOf: sent)
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) == sent.count }
        try await waitUntil { fleet.attacker.listener.payloads.count >= 1 }

        #expect(fleet.attacker.listener.payloads.count == 1)
        let batch = try Self.opened(try #require(fleet.attacker.listener.payloads.first))
        #expect(batch.version == 4)
        #expect(batch.clears == sent)
        #expect(try await onB.source(of: balance) == .network, "the batch's domain clear was applied")
        #expect(fleet.a.replicationStatistics?.published == sent.count)
        #expect(fleet.a.replicationStatistics?.messagesSent == 1)
        #expect(fleet.b.replicationStatistics?.rejected == 0)
        await fleet.shutdown()
    }

    @Test("in one batch, clears of sessions B does not hold are passed over undecoded, the others applied in order")
    func mixedBatchPassesOverUnheld() async throws {
        let fleet = try await BatchingFleet("batchmixed")
        let hash = try fleet.aliceHash()
        let stranger = String(repeating: "5e", count: 32)  // a wire name no session here has
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: balance).get()
        let sent = [
            ReplicationMessage(session: stranger, clear: .everything(reason: "logout", endsSession: true)),
            ReplicationMessage(session: hash, clear: .domain(name: "balances", reason: "manual")),
            ReplicationMessage(session: stranger, clear: .domain(name: "balances", reason: "manual")),
            ReplicationMessage(session: nil, clear: .query("q1")),
        ]

        try #require(fleet.a.replication).send(contentsOf: sent)
        try await waitUntil { (fleet.b.replicationStatistics?.unknownSession ?? 0) == 3 }

        #expect(fleet.b.replicationStatistics?.applied == 1)
        #expect(fleet.b.replication?.undecodedUnheldClears == 2, "the clear naming no session is decoded")
        #expect(try await onB.source(of: balance) == .network, "alice's clear in the middle was applied")
        #expect(fleet.b.sessionCount == 1)
        await fleet.shutdown()
    }

    @Test("a message whose clears all name sessions B does not hold is passed over whole, a clear of every session not")
    func wholeMessagePassedOver() async throws {
        let fleet = try await BatchingFleet("batchpassover")
        let stranger = String(repeating: "5e", count: 32)
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: balance).get()
        let strangers = (0..<5).map { _ in
            ReplicationMessage(session: stranger, clear: .domain(name: "balances", reason: "manual"))
        }
        try #require(fleet.a.replication).send(contentsOf: strangers)
        try await waitUntil { (fleet.b.replicationStatistics?.unknownSession ?? 0) == 5 }
        #expect(fleet.b.replication?.undecodedUnheldClears == 5)
        #expect(try await onB.source(of: balance) == .cache)

        // Named, but a clear of every session: applied to alice's session whatever the name.
        let everySession = ReplicationMessage(
            session: stranger, clear: .domainsInEverySession(names: ["balances"], reason: "settingsChanged"))
        try #require(fleet.a.replication).send(contentsOf: [everySession])
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) == 1 }
        #expect(fleet.b.replication?.undecodedUnheldClears == 5)
        #expect(try await onB.source(of: balance) == .network)
        await fleet.shutdown()
    }

    @Test("with a batching window, clears made one after the other within it share one message")
    func windowGathersClearsMadeOneByOne() async throws {
        // Stretched under the sanitizers, within the window's 1 s ceiling.
        let window = min(TestTiming.milliseconds(400), 1_000)
        let fleet = try await BatchingFleet("batchwindow", window: .milliseconds(window))
        let onA = fleet.alice(on: fleet.a)
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: balance).get()

        await onA.cacheManager.clearBalancesCache()
        await onA.cacheManager.clearCache(forQuery: "q1")
        await onA.cacheManager.clearCache(forQuery: "q2")
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) == 3 }
        try await Self.waitUntilHeard(3, by: fleet.attacker)

        #expect(fleet.attacker.listener.payloads.count == 1)
        #expect(fleet.a.replicationStatistics?.messagesSent == 1)
        #expect(try await onB.source(of: balance) == .network)
        await fleet.shutdown()
    }

    @Test("a burst through the clearing API arrives as fewer messages than clears, every clear applied in order")
    func burstArrivesInFewerMessages() async throws {
        let fleet = try await BatchingFleet("batchburst")
        let users = (0..<8).map { "burst-\($0)" }
        let perSession = 40
        let onA = users.map {
            fleet.a.session(id: "session-\($0)", principal: VerifiedPrincipal($0), credentials: .bearer("token-\($0)"))
        }
        _ = users.map {
            fleet.b.session(id: "session-\($0)", principal: VerifiedPrincipal($0), credentials: .bearer("token-\($0)"))
        }
        let total = users.count * perSession

        await withTaskGroup(of: Void.self) { group in
            for session in onA {
                group.addTask {
                    for index in 0..<perSession { await session.cacheManager.clearCache(forQuery: "q\(index)") }
                }
            }
        }
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) >= total }
        try await Self.waitUntilHeard(total, by: fleet.attacker)

        var bySession: [String: [String]] = [:]
        var count = 0
        for payload in fleet.attacker.listener.payloads {
            for message in try Self.opened(payload).clears {
                guard let session = message.session, case .query(let query) = message.clear else { continue }
                bySession[session, default: []].append(query)
                count += 1
            }
        }
        #expect(count == total)
        #expect(fleet.attacker.listener.payloads.count < total, "clears queued together shared a message")
        for queries in bySession.values { #expect(queries == (0..<perSession).map { "q\($0)" }) }
        #expect(fleet.b.replicationStatistics?.applied == total)
        #expect(fleet.b.replicationStatistics?.rejected == 0)
        await fleet.shutdown()
    }

    @Test("clears past the per-message cap or the payload cap are split over several messages, none lost")
    func overTheCapsIsSplit() async throws {
        let fleet = try await BatchingFleet("batchsplit", clears: 4)
        let hash = try fleet.aliceHash()
        _ = fleet.alice(on: fleet.b)
        let sent = Self.queries(10, session: hash)
        try #require(fleet.a.replication).send(contentsOf: sent)
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) == sent.count }
        try await Self.waitUntilHeard(sent.count, by: fleet.attacker)
        let messages = try fleet.attacker.listener.payloads.map(Self.opened)
        #expect(messages.map(\.clears.count) == [4, 4, 2])
        #expect(messages.flatMap(\.clears) == sent)
        await fleet.shutdown()

        let small = try await BatchingFleet("batchbytes", maximumPayloadBytes: 512)
        _ = small.alice(on: small.b)
        let long = (0..<10).map {
            ReplicationMessage(session: hash, clear: .query("q\($0)" + String(repeating: "x", count: 150)))
        }
        try #require(small.a.replication).send(contentsOf: long)
        try await waitUntil { (small.b.replicationStatistics?.applied ?? 0) == long.count }
        try await Self.waitUntilHeard(long.count, by: small.attacker)
        let payloads = small.attacker.listener.payloads
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.count <= 512 })
        #expect(try payloads.map(Self.opened).flatMap(\.clears) == long)
        #expect(small.b.replicationStatistics?.rejected == 0)
        await small.shutdown()
    }

    @Test("a batch replayed, altered or re-labelled as a single clear is refused whole: none of its clears applies")
    func tamperedOrReplayedBatchIsRefusedWhole() async throws {
        let fleet = try await BatchingFleet("batchattack")
        let hash = try fleet.aliceHash()
        let onB = fleet.alice(on: fleet.b)
        let sent =
            [ReplicationMessage(session: hash, clear: .domain(name: "balances", reason: "manual"))]
            + Self.queries(2, session: hash)
        try #require(fleet.a.replication).send(contentsOf: sent)
        try await waitUntil {
            (fleet.b.replicationStatistics?.applied ?? 0) == sent.count && fleet.attacker.listener.payloads.count == 1
        }
        let batch = try #require(fleet.attacker.listener.payloads.first)
        #expect(batch[0] == 4)
        _ = try await onB.rest.perform(with: balance).get()

        try fleet.attacker.publish(batch)  // replayed as captured
        var altered = batch
        altered[altered.count - 20] ^= 0x01  // a ciphertext byte
        try fleet.attacker.publish(altered)
        var relabelled = batch
        relabelled[0] = 3  // passed off as a single clear
        try fleet.attacker.publish(relabelled)
        try await waitUntil {
            fleet.b.replicationStatistics?.rejected(.replayed) == 1
                && fleet.b.replicationStatistics?.rejected(.unauthentic) == 2
        }
        #expect(try await onB.source(of: balance) == .cache)
        #expect(fleet.b.replicationStatistics?.applied == sent.count)
        await fleet.shutdown()
    }

    @Test("a batch issued further ahead than the clock-skew allowance is refused whole")
    func batchFromTheFutureIsRefused() async throws {
        let fleet = try await BatchingFleet("batchfuture")
        let hash = try fleet.aliceHash()
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: balance).get()
        fleet.clockA.advance(seconds: 30)
        try #require(fleet.a.replication).send(
            contentsOf: [ReplicationMessage(session: hash, clear: .domain(name: "balances", reason: "manual"))]
                + Self.queries(2, session: hash))
        try await waitUntil { fleet.b.replicationStatistics?.rejected(.future) == 1 }
        #expect(try await onB.source(of: balance) == .cache)
        #expect(fleet.b.replicationStatistics?.applied == 0)
        await fleet.shutdown()
    }

    @Test("a single-clear message in format v3, from a replica that does not batch, is applied by a batching one")
    func singleClearFormatStillApplies() async throws {
        let fleet = try await BatchingFleet("batchold")
        let hash = try fleet.aliceHash()
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: balance).get()
        // A replica of the fleet that sends each clear alone, publishing through a connection of its own.
        let older = ReplicationSealer(secret: try ReplicationSecret(Array(ReplicaHarness.secret.utf8)))
        let clear = ReplicationMessageCodec.encode(
            ReplicationMessage(session: hash, clear: .domain(name: "balances", reason: "manual")))
        var payload: [UInt8] = []
        older.seal(clear, issuedAt: ReplayRules.milliseconds(since1970: fleet.clockB.wallClockNow())) { payload = $0 }
        #expect(payload[0] == 3)
        try fleet.attacker.publish(payload)
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) == 1 }
        #expect(try await onB.source(of: balance) == .network)
        #expect(fleet.b.replicationStatistics?.rejected == 0)
        await fleet.shutdown()
    }

    @Test("a clear cap outside 1…1024 or a batching window outside 0…1 s is refused when the hub starts")
    func batchingSettingsAreValidated() async throws {
        let tenant = try await FixtureServer.tenant("batchcap")
        let url = try await RedisTestServer.sharedURL()
        let invalid: [(Int, Duration)] = [(0, .zero), (1_025, .zero), (64, .milliseconds(-1)), (64, .seconds(2))]
        for (cap, window) in invalid {
            #expect(throws: UnifiedCacheError.self) {
                try ReplicaHarness.hub(
                    tenant: tenant, redisURL: url, channel: uniqueChannel("batchcap"), settings: SettingsStore(),
                    adjust: {
                        $0.maximumClearsPerMessage = cap
                        $0.batchingWindow = window
                    })
            }
        }
    }
}
