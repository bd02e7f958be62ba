import CacheCore
import Foundation
import Testing

@testable import UnifiedCache

@Suite("Learned account pairs are charged to the memory budget while they are kept")
struct AccountResolverChargeTests {
    @Test("each new pair is charged once; a pair already known, or past the limit, charges nothing")
    func pairsAreCharged() throws {
        let budget = try MemoryBudget(limit: 1 << 20)
        let resolver = AccountResolver(configuration: .init(maximumLearnedPairs: 2), budget: budget)
        resolver.learn(id: "101", token: "tok-101")
        let one = AccountResolver.chargedBytes(id: "101", token: "tok-101")
        #expect(one == 96)
        #expect(budget.usedBytes == one)
        resolver.learn(id: "101", token: "tok-101")
        #expect(budget.usedBytes == one)

        // A token too long to be stored inline is charged its heap block too.
        let longToken = String(repeating: "t", count: 40)
        resolver.learn(fromJSON: Data(#"[{"id":"102","accountToken":"\#(longToken)"}]"#.utf8))
        #expect(budget.usedBytes == one + 96 + 72)
        resolver.learn(id: "103", token: "tok-103")
        #expect(resolver.learnedPairCount == 2)
        #expect(resolver.chargedBytes == budget.usedBytes)
    }

    @Test("forgetting every pair, or the resolver going away, releases what they were charged")
    func pairsAreReleased() throws {
        let budget = try MemoryBudget(limit: 1 << 20)
        let resolver = AccountResolver(budget: budget)
        resolver.learn(id: "101", token: "tok-101")
        resolver.forgetAll()
        #expect(budget.usedBytes == 0)
        #expect(resolver.identifiers(of: "101") == ["101"])
        do {
            let another = AccountResolver(budget: budget)
            another.learn(id: "201", token: "tok-201")
            #expect(budget.usedBytes == 96)
        }
        #expect(budget.usedBytes == 0)
    }
}
