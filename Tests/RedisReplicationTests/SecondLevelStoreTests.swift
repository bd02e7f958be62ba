import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level: reads, generation-checked writes, clears and TTLs")
struct SecondLevelStoreTests {
    @Test("a miss returns the namespace's generation; a write with it is then read back byte for byte")
    func writeThenRead() async throws {
        let store = try await connectedStore(
            secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "rw"))
        let entry = key("session-a", "entry-1")
        let first = await store.read(entry, deadline: patientDeadline)
        #expect(first == .miss(generation: SecondLevelGeneration(token: "0.0")))

        let value: [UInt8] = [0, 1, 2, 0, 0xFF, 13, 10, 0] + Array(repeating: 0x5A, count: 1000) + [0]
        try await writeAndSettle(store, value, for: entry, generation: generation(of: first))
        #expect(await store.read(entry, deadline: patientDeadline) == .hit(value, generation: generation(of: first)))
        let statistics = store.statistics()
        #expect(statistics.writes == 1 && statistics.hits == 1 && statistics.misses == 1)
        #expect(statistics.bytesRead == value.count && statistics.bytesWritten == value.count)
        #expect(statistics.answeredReads == 2 && statistics.readLatencyNanoseconds > 0)
        await store.shutdown()
    }

    @Test("a write carrying the generation from before a namespace clear is not stored")
    func staleGenerationWrite() async throws {
        let store = try await connectedStore(
            secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "stale"))
        let entry = key("session-a", "entry-1")
        let before = generation(of: await store.read(entry, deadline: patientDeadline))
        await store.clearNamespace(SecondLevelNamespace("session-a"))
        try await writeAndSettle(store, [1, 2, 3], for: entry, generation: before)

        let after = await store.read(entry, deadline: patientDeadline)
        #expect(after == .miss(generation: SecondLevelGeneration(token: "0.1")))
        #expect(store.statistics().writes == 0 && store.statistics().droppedWrites == 1)
        await store.shutdown()
    }

    @Test("on one server a read runs no script: GET of the epoch and the generation, HMGET of the value")
    func readIsPlainCommands() async throws {
        let redis = try await OwnRedis("plainread")
        let (store, raw) = (redis.store, try RawRedis(redis.configuration))
        try await writeAndSettle(store, [3], for: key("alice", "a"), generation: initialGeneration)
        let before = (try raw.calls(of: "evalsha"), try raw.calls(of: "get"), try raw.calls(of: "hmget"))
        for _ in 0..<10 {
            #expect(
                await store.read(key("alice", "a"), deadline: patientDeadline)
                    == .hit([3], generation: initialGeneration))
        }
        #expect(await store.read(key("alice", "b"), deadline: patientDeadline) == .miss(generation: initialGeneration))
        #expect(try raw.calls(of: "evalsha") == before.0)
        // Health checks may read the epoch meanwhile: at least the reads' own.
        #expect(try raw.calls(of: "get") >= before.1 + 22)
        #expect(try raw.calls(of: "hmget") == before.2 + 11)
        await redis.stop()
    }

    @Test("a namespace clear hides everything in it, leaves other namespaces, and is one command in Redis")
    func clearNamespace() async throws {
        let redis = try await OwnRedis("ns")
        let store = redis.store
        let raw = try RawRedis(redis.configuration)
        for index in 0..<50 {
            store.write(
                [UInt8(index)], for: key("alice", "e\(index)"), generation: initialGeneration, timeToLive: .seconds(60),
                tags: [])
        }
        try await writeAndSettle(store, [9], for: key("bob", "e0"), generation: initialGeneration)
        try await waitUntil { store.statistics().writes == 51 }

        let (scripts, increments, deletions) = (
            try raw.calls(of: "evalsha"), try raw.calls(of: "incr"), try raw.calls(of: "del")
        )
        await store.clearNamespace(SecondLevelNamespace("alice"))
        #expect(try raw.calls(of: "evalsha") == scripts + 1)
        #expect(try raw.calls(of: "incr") == increments + 1)
        #expect(try raw.calls(of: "del") == deletions)
        #expect(store.statistics().clears == 1)

        for index in [0, 17, 49] {
            #expect(
                await store.read(key("alice", "e\(index)"), deadline: patientDeadline)
                    == .miss(generation: SecondLevelGeneration(token: "0.1")))
        }
        #expect(
            await store.read(key("bob", "e0"), deadline: patientDeadline) == .hit([9], generation: initialGeneration))
        await redis.stop()
    }

    @Test("a tag clear removes exactly the entries indexed under its tags, in that namespace")
    func clearTags() async throws {
        let store = try await connectedStore(
            secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "tags"))
        let (balances, payees, cards) = (SecondLevelTag("balances"), SecondLevelTag("payees"), SecondLevelTag("cards"))
        try await writeAndSettle(
            store, [1], for: key("alice", "balance-101"), generation: initialGeneration, tags: [balances])
        try await writeAndSettle(
            store, [2], for: key("alice", "overview"), generation: initialGeneration, tags: [balances, payees])
        try await writeAndSettle(
            store, [3], for: key("alice", "payee-list"), generation: initialGeneration, tags: [payees])
        try await writeAndSettle(
            store, [4], for: key("alice", "card-list"), generation: initialGeneration, tags: [cards])
        try await writeAndSettle(
            store, [5], for: key("bob", "balance-201"), generation: initialGeneration, tags: [balances])

        await store.clearTags([balances, payees], in: SecondLevelNamespace("alice"))
        for name in ["balance-101", "overview", "payee-list"] {
            #expect(
                await store.read(key("alice", name), deadline: patientDeadline) == .miss(generation: initialGeneration))
        }
        #expect(
            await store.read(key("alice", "card-list"), deadline: patientDeadline)
                == .hit([4], generation: initialGeneration))
        #expect(
            await store.read(key("bob", "balance-201"), deadline: patientDeadline)
                == .hit([5], generation: initialGeneration))
        #expect(store.statistics().clears == 1)
        await store.shutdown()
    }

    @Test("a fleet-wide clear moves every namespace at once")
    func clearAll() async throws {
        let store = try await connectedStore(
            secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "all"))
        try await writeAndSettle(store, [1], for: key("alice", "a"), generation: initialGeneration)
        try await writeAndSettle(store, [2], for: key("bob", "b"), generation: initialGeneration)
        await store.clearNamespace(SecondLevelNamespace("bob"))

        await store.clearAll()
        #expect(
            await store.read(key("alice", "a"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "1.0")))
        #expect(
            await store.read(key("bob", "b"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "1.1")))
        #expect(store.statistics().clears == 2)
        await store.shutdown()
    }

    @Test("on one server, another store's fleet-wide clear reaches this store's next read and tag clear at once")
    func clearAllFromAnotherStore() async throws {
        let configuration = try secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "all2")
        let (one, other) = (try await connectedStore(configuration), try await connectedStore(configuration))
        let tag = SecondLevelTag("t")
        try await writeAndSettle(one, [1], for: key("alice", "a"), generation: initialGeneration)
        #expect(
            await other.read(key("alice", "a"), deadline: patientDeadline) == .hit([1], generation: initialGeneration))

        await one.clearAll()
        let moved = SecondLevelGeneration(token: "1.0")
        #expect(await other.read(key("alice", "a"), deadline: patientDeadline) == .miss(generation: moved))
        try await writeAndSettle(one, [2], for: key("alice", "b"), generation: moved, tags: [tag])
        await other.clearTags([tag], in: SecondLevelNamespace("alice"))
        #expect(await one.read(key("alice", "b"), deadline: patientDeadline) == .miss(generation: moved))
        await one.shutdown()
        await other.shutdown()
    }

    @Test("values, tag sets and generation keys get TTLs; every TTL is capped by maxTimeToLive")
    func timeToLive() async throws {
        var configuration = try secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "ttl")
        configuration.maxTimeToLive = .seconds(600)
        let store = try await connectedStore(configuration)
        let raw = try RawRedis(configuration)
        let prefix = configuration.keyPrefix
        // The first write of a namespace creates its generation key, living as long as the value.
        try await writeAndSettle(
            store, [0], for: key("bob", "first"), generation: initialGeneration, timeToLive: .seconds(30))
        #expect(try raw.command("GET", "\(prefix){bob}g") == .string(Array("0".utf8)))
        let createdTTL = try #require(try raw.integer("PTTL", "\(prefix){bob}g"))
        #expect(createdTTL > 20_000 && createdTTL <= 30_000)

        await store.clearNamespace(SecondLevelNamespace("alice"))
        #expect(try raw.command("GET", "\(prefix){alice}g") == .string(Array("1".utf8)))
        let generationTTL = try #require(try raw.integer("PTTL", "\(prefix){alice}g"))
        #expect(generationTTL > 590_000 && generationTTL <= 600_000)

        let one = SecondLevelGeneration(token: "0.1")
        try await writeAndSettle(
            store, [1], for: key("alice", "short"), generation: one, timeToLive: .seconds(30),
            tags: [SecondLevelTag("t")])
        let valueTTL = try #require(try raw.integer("PTTL", "\(prefix){alice}v:0:short"))
        let tagTTL = try #require(try raw.integer("PTTL", "\(prefix){alice}t:0:t"))
        #expect(valueTTL > 20_000 && valueTTL <= 30_000)
        #expect(tagTTL > 20_000 && tagTTL <= 30_000)

        try await writeAndSettle(
            store, [2], for: key("alice", "long"), generation: one, timeToLive: .seconds(7_200),
            tags: [SecondLevelTag("t")])
        let cappedTTL = try #require(try raw.integer("PTTL", "\(prefix){alice}v:0:long"))
        #expect(cappedTTL > 590_000 && cappedTTL <= 600_000)
        // The tag set lives as long as its longest-lived value; the generation key at least as long as any value.
        #expect(try #require(try raw.integer("PTTL", "\(prefix){alice}t:0:t")) > 590_000)

        // A generation key closer to its end than a new value is extended to outlive it.
        _ = try raw.command("PEXPIRE", "\(prefix){alice}g", "1000")
        try await writeAndSettle(store, [3], for: key("alice", "later"), generation: one, timeToLive: .seconds(60))
        #expect(try #require(try raw.integer("PTTL", "\(prefix){alice}g")) > 50_000)
        await store.shutdown()
    }
}
