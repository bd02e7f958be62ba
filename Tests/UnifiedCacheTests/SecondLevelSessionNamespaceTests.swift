import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// A session's second-level namespace is a keyed hash of its identity. Views are made on every access, so the
/// session hashes it once, with its first view, keeps it and is charged for it.
@Suite("A session's second-level namespace is hashed by its first view, kept, and charged once")
struct SecondLevelSessionNamespaceTests {
    @Test("the first view keeps the namespace its scope hashes to; later views charge nothing more")
    func firstViewKeepsTheNamespace() async throws {
        let harness = try await SecondLevelHarness("l2-namespace-kept")
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        let alice = harness.session(harness.b, .alice)
        #expect(alice.existingParts.secondLevelNamespace == nil)
        let before = harness.b.budget.usedBytes

        _ = alice.rest
        let kept = try #require(alice.existingParts.secondLevelNamespace)
        #expect(kept == front.names.namespace(of: alice.scope))
        #expect(
            harness.b.budget.usedBytes - before
                == SessionFactory.charge.rest + SessionFactory.secondLevelNamespaceCharge)

        let afterREST = harness.b.budget.usedBytes
        _ = alice.graphQL
        _ = alice.rest
        _ = alice.graphQL
        #expect(harness.b.budget.usedBytes - afterREST == SessionFactory.charge.graphQL)
        #expect(alice.existingParts.secondLevelNamespace == kept)

        // Another user's session hashes a namespace of its own.
        let bob = harness.session(harness.b, .bob)
        _ = bob.graphQL
        let bobs = try #require(bob.existingParts.secondLevelNamespace)
        #expect(bobs == front.names.namespace(of: bob.scope))
        #expect(bobs != kept)
    }

    @Test("a session's end gives the namespace's charge back, and a view made after the end charges nothing")
    func endReleasesTheCharge() async throws {
        let harness = try await SecondLevelHarness("l2-namespace-ended")
        defer { Task { await harness.shutdown() } }
        let before = harness.b.budget.usedBytes
        let alice = harness.session(harness.b, .alice)
        _ = alice.rest
        #expect(harness.b.budget.usedBytes > before)

        _ = await harness.b.endSession(id: alice.id)
        #expect(harness.b.budget.usedBytes == before)
        let late = harness.session(harness.b, .carol)
        _ = await harness.b.endSession(id: late.id)
        _ = late.rest
        #expect(late.existingParts.secondLevelNamespace != nil)
        #expect(harness.b.budget.usedBytes == before)
    }

    @Test("what one user's views wrote on one replica, that user's views read on another; another user's do not")
    func viewsOfOneUserShareTheNamespace() async throws {
        let harness = try await SecondLevelHarness("l2-namespace-shared-by-views")
        defer { Task { await harness.shutdown() } }
        let request = SecondLevelGET(path: "/api/accounts", key: "namespace.accounts")
        let written = try await harness.session(harness.a, .alice).rest.performWithSource(with: request).get()
        #expect(written.source == .network)
        let dashboard = try await harness.session(harness.a, .alice).values.value(
            forKey: "dashboard", options: .init(duration: .seconds(60))
        ) { "alice's dashboard" }
        try await harness.waitForWrites(harness.a, 2)

        let onB = harness.session(harness.b, .alice)
        let read = try await onB.rest.performWithSource(with: request).get()
        #expect(read.source == .cache)
        let value = try await onB.values.value(forKey: "dashboard") { "made again" }
        #expect(value == dashboard)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)

        // Bob's session on B, under its own namespace, finds neither.
        let bob = harness.session(harness.b, .bob)
        #expect(try await bob.rest.performWithSource(with: request).get().source == .network)
        #expect(try await bob.values.value(forKey: "dashboard") { "bob's" } == "bob's")
    }

    @Test("the shared scope's values are read across replicas under the shared namespace, never a session's")
    func sharedValuesUseTheSharedNamespace() async throws {
        let harness = try await SecondLevelHarness("l2-namespace-shared-values")
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        #expect(front.sharedNamespace == front.names.namespace(of: .shared))
        _ = try await harness.a.values.value(forKey: "rates", options: .init(duration: .seconds(60))) { "1.08" }
        try await harness.waitForWrites(harness.a, 1)

        let runs = CallCounter()
        let read = try await harness.b.values.value(forKey: "rates") {
            runs.increment()
            return "made again"
        }
        #expect(read == "1.08")
        #expect(runs.count == 0)
        let inSession = try await harness.session(harness.b, .alice).values.value(forKey: "rates") { "alice's" }
        #expect(inSession == "alice's")
    }
}
