import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// Two replicas on a 3-primary Redis Cluster, each replicating through another node: classic pub/sub reaches every
/// node, the L2 is routed by slot, and a primary down costs only its shard's entries.
@Suite(
    "Two replicas on a Redis Cluster: clears reach both, a dead primary costs misses, nothing stale after", .serialized)
struct SecondLevelClusterFleetTests {
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")

    /// `redis://…` listing every node, with node `first` first (the node its replication link uses).
    private func url(_ cluster: RedisTestCluster, first: Int) -> String {
        let order = [first] + cluster.ports.indices.filter { $0 != first }
        return "redis://:\(cluster.password)@"
            + order.map { "\(cluster.host):\(cluster.ports[$0])" }.joined(separator: ",")
    }

    /// The node (index) that holds the second-level namespace of `user`'s session.
    private func node(of user: FixtureTenant.User, _ harness: SecondLevelHarness, _ cluster: RedisTestCluster) throws
        -> Int
    {
        let front = try #require(harness.a.secondLevel)
        let namespace = front.names.namespace(of: harness.session(harness.a, user).scope)
        let (map, _) = RedisClusterMap.discover(try RedisReplicationConfiguration(url: cluster.url), known: [])
        let owner = try #require(map[RedisClusterSlot.of(Array(namespace.name.utf8))])
        return try #require(cluster.ports.firstIndex(of: owner.port))
    }

    @Test("a logout on A reaches B through another node of the cluster, and the L2 is cleared once")
    func logoutAcrossNodes() async throws {
        let cluster = try await RedisTestCluster.start()
        let harness = try await SecondLevelHarness(
            "l2-cluster-logout", redisURL: url(cluster, first: 0), redisURLOfB: url(cluster, first: 1),
            replicating: true)
        try await harness.waitForEveryNode()
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)

        await harness.a.endSession(id: "session-alice")
        try await harness.waitUntilApplied(harness.b, 1)

        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
        #expect(harness.a.secondLevelStatistics?.clears == 1)
        #expect(harness.b.secondLevelStatistics?.clears == 0)
        await harness.shutdown()
        await cluster.stop()
    }

    @Test(
        "a primary killed: every call answers, only its shard goes to the upstream; a logout made meanwhile holds after"
    )
    func primaryKilledThenBack() async throws {
        let cluster = try await RedisTestCluster.start()
        let harness = try await SecondLevelHarness(
            "l2-cluster-kill", redisURL: url(cluster, first: 0), redisURLOfB: url(cluster, first: 1),
            replicating: true)
        try await harness.waitForEveryNode()
        let users: [FixtureTenant.User] = [.alice, .bob, .carol]
        for user in users { _ = try await harness.session(harness.a, user).source(of: accounts) }
        try await labelled("A writes the three users' answers to the L2") {
            try await harness.waitForWrites(harness.a, users.count)
        }
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)
        let victim = try node(of: .alice, harness, cluster)
        let survivors = try users.filter { try node(of: $0, harness, cluster) != victim }

        await cluster.kill(victim)
        await harness.a.endSession(id: "session-alice")
        try await labelled("B applies A's logout made while alice's primary is down") {
            try await waitUntil { (harness.b.replicationStatistics?.applied ?? 0) >= 1 }
        }
        // With alice's shard down every call still answers: the others from the L2, alice from the upstream.
        for user in survivors {
            #expect(try await harness.session(harness.b, user).source(of: accounts).source == .cache)
        }
        #expect(try await harness.session(harness.a, .alice).source(of: accounts).source == .network)
        #expect(harness.a.secondLevelStatistics?.store.timeouts == 0)
        #expect(harness.b.secondLevelStatistics?.store.timeouts == 0)
        let upstreamCalls = try await harness.counters().route("GET /api/accounts")
        #expect(upstreamCalls == users.count + 1)

        try await labelled("the killed primary restarts") { try await cluster.restart(victim) }
        try await labelled("both stores reconnect to every primary") {
            try await waitUntil {
                harness.a.secondLevelStatistics?.store.isConnected == true
                    && harness.b.secondLevelStatistics?.store.isConnected == true
            }
        }
        // Alice's value from before the logout is still in the node's append-only file: B, which never cleared the
        // L2 itself, does not serve it (A's clear is applied first, or B refuses the generation it saw cleared).
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == upstreamCalls + 1)
        await harness.shutdown()
        await cluster.stop()
    }
}

extension SecondLevelHarness {
    /// Waits until both stores are connected to every primary of the slot map: a store is ready once one node is,
    /// and a read of a slot whose node it has not reached yet is unavailable (nothing is written for it).
    fileprivate func waitForEveryNode() async throws {
        try await waitUntil {
            [stores.a, stores.b].allSatisfy { $0.nodes.known > 0 && $0.nodes.connected == $0.nodes.known }
        }
    }
}

/// Runs one waiting step of a test; a failure names the step (a timeout alone does not say which wait it was).
private func labelled(_ step: String, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        Issue.record("\(step): \(error)")
        throw error
    }
}
