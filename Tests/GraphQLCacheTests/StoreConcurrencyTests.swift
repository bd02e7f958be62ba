import CacheCore
import Dispatch
import GraphQLCache
import Synchronization
import Testing

@Suite("Normalized store: concurrent use")
struct StoreConcurrencyTests {
    private static func accountsData(version: Int, count: Int) -> String {
        let accounts = (0..<count).map { index in
            #"{"__typename": "Account", "id": "\#(index)", "name": "A\#(index)", "balance": \#(version)}"#
        }
        return #"{"accounts": [\#(accounts.joined(separator: ","))]}"#
    }

    @Test("readers always see a whole write, never half of one")
    func readsSeeWholeWrites() async throws {
        let store = try makeNormalizedStore()
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: Self.accountsData(version: 0, count: 50))
        let torn = SharedCounter()
        let reads = SharedCounter()

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for version in 1...200 {
                    try store.write(accounts, json: Self.accountsData(version: version, count: 50))
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<200 {
                        let data = try store.hitData(accounts)
                        let balances = Set((data["accounts"]?.arrayValue ?? []).map { $0["balance"] })
                        if balances.count != 1 {
                            torn.increment()
                        }
                        reads.increment()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(torn.value == 0)
        #expect(reads.value == 800)
        #expect(try store.hitData(accounts)["accounts"]?.arrayValue?.first?["balance"] == 200)
    }

    @Test("a reader holding the scope does not keep another reader of the same scope waiting")
    func readersDoNotBlockEachOther() throws {
        let store = try makeNormalizedStore()
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData)
        let gate = ReaderGate()
        let first = DispatchGroup()
        let firstResult = SharedResult()
        first.enter()
        DispatchQueue.global().async {
            defer { first.leave() }
            firstResult.set(
                Result {
                    try store.read(HoldingReader.self, operation: accounts, in: alice, userInfo: [ReaderGate.key: gate])
                        .value != nil
                }
            )
        }
        #expect(gate.entered.wait(timeout: .now() + 10) == .success)

        // The first read is inside its decode, holding the scope's read lock, until this read has finished.
        let second = try store.hitData(accounts)
        gate.otherFinished.signal()
        first.wait()

        #expect(second["accounts"]?.arrayValue?.count == 2)
        #expect(firstResult.value == true)
    }

    @Test("writes, reads, clears and evictions in many scopes keep the budget exact")
    func budgetStaysExactUnderConcurrency() async throws {
        let budget = try MemoryBudget(limit: 400_000)
        let store = try makeNormalizedStore(budget: budget) { $0.maxRecordsPerScope = 30 }
        let accounts = try prepare(BankOperations.accounts)
        let scopes = (0..<8).map { CacheScope.session("s\($0)") }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, scope) in scopes.enumerated() {
                group.addTask {
                    for round in 0..<60 {
                        let generation = store.generation(of: scope)
                        _ = try store.write(
                            accounts,
                            data: try jsonObject(Self.accountsData(version: round, count: 10 + round % 25)),
                            in: scope,
                            ifGeneration: generation
                        )
                        _ = try store.read(accounts, in: scope)
                        switch (round + index) % 10 {
                        case 3: store.clear(scope: scope)
                        case 5: try store.removeRecords(matching: "Account:1*", in: scope)
                        case 7: store.collectGarbage(in: scope)
                        default: break
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let held = scopes.reduce(0) { $0 + store.byteCount(in: $1) }
        #expect(budget.usedBytes == held)
        #expect(budget.usedBytes <= budget.limit)
        for scope in scopes {
            #expect(store.recordCount(in: scope) <= 30)
            #expect(store.records(in: scope).reduce(0) { $0 + $1.byteCount } == store.byteCount(in: scope))
        }
    }
}

/// A counter tasks share.
private final class SharedCounter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() {
        count.add(1, ordering: .relaxed)
    }

    var value: Int {
        count.load(ordering: .relaxed)
    }
}

/// Lets a test hold a read open (inside `init(from:)`) while another read runs.
private final class ReaderGate: Sendable {
    static let key = CodingUserInfoKey(rawValue: "ReaderGate")!
    let entered = DispatchSemaphore(value: 0)
    let otherFinished = DispatchSemaphore(value: 0)
}

/// Decodes nothing; signals that the read is under way and waits (at most 10 s) for the other reader.
private struct HoldingReader: Decodable {
    init(from decoder: any Decoder) throws {
        guard let gate = decoder.userInfo[ReaderGate.key] as? ReaderGate else {
            throw StoreTestFailure("no gate")
        }
        gate.entered.signal()
        guard gate.otherFinished.wait(timeout: .now() + 10) == .success else {
            throw StoreTestFailure("the other reader did not finish while this one held the scope")
        }
    }
}

/// A result handed from a dispatch queue to the test.
private final class SharedResult: Sendable {
    private let stored = Mutex<Bool?>(nil)

    func set(_ result: Result<Bool, any Error>) {
        stored.withLock { $0 = (try? result.get()) ?? false }
    }

    var value: Bool? {
        stored.withLock { $0 }
    }
}
