import Testing

@testable import CacheCore

@Suite("ScopeDueQueue: one item per scope, moved in place")
struct ScopeDueQueueTests {
    private func at(_ nanoseconds: Int64) -> CacheInstant {
        CacheInstant(nanoseconds: nanoseconds)
    }

    @Test("a scope moved earlier ten thousand times keeps one heap item and the smallest index")
    func forwardMovesKeepOneItem() {
        var heap = ScopeDueHeap()
        for step in 0..<10_000 {
            heap.schedule(alice, at: at(Int64(100_000 - step)))
            #expect(heap.count == 1)
        }
        heap.schedule(bob, at: at(95_000))
        #expect(heap.count == 2)
        #expect(heap.indexSlotCount == 8)
        #expect(heap.popMin(through: at(90_000)) == nil)
        #expect(heap.popMin(through: at(90_001)) == alice)
        #expect(heap.popMin(through: at(90_001)) == nil)
        #expect(heap.popMin(through: at(95_000)) == bob)
        #expect(heap.count == 0)
    }

    @Test("random schedules and pops return every due scope once, at its earliest schedule, none lost")
    func matchesAReferenceModel() {
        var generator = SplitMix(seed: 11)
        let queue = ScopeDueQueue()
        let scopes = (0..<300).map { CacheScope.session("s\($0)") } + [.shared]
        var model: [CacheScope: CacheInstant] = [:]
        var now: Int64 = 0
        for _ in 0..<40_000 {
            if generator.next() % 8 == 0 {
                now += Int64(generator.next() % 200)
                let due = queue.popDue(through: at(now))
                let expected = model.filter { $0.value <= at(now) }
                #expect(due.count == expected.count)
                #expect(Set(due) == Set(expected.keys))
                let instants = due.compactMap { model[$0] }
                #expect(instants == instants.sorted())
                for scope in due {
                    model[scope] = nil
                }
            } else {
                let scope = scopes[Int(generator.next() % UInt64(scopes.count))]
                let instant = at(now + Int64(generator.next() % 1_000))
                queue.schedule(scope, at: instant)
                model[scope] = min(model[scope] ?? instant, instant)
            }
            #expect(queue.scheduledCount == model.count)
            #expect(queue.heapCount == model.count)
        }
        let rest = queue.popDue(through: at(.max))
        #expect(rest.count == model.count)
        #expect(Set(rest) == Set(model.keys))
        #expect(queue.scheduledCount == 0)
    }

    @Test("popping most scopes shrinks the index, and the scopes left are still found and moved")
    func compactsAfterPops() {
        var heap = ScopeDueHeap()
        let scopes = (0..<10_000).map { CacheScope.session("s\($0)") }
        for (index, scope) in scopes.enumerated() {
            heap.schedule(scope, at: at(Int64(index)))
        }
        #expect(heap.indexSlotCount == 16_384)
        var popped = 0
        while heap.popMin(through: at(9_989)) != nil {
            popped += 1
        }
        heap.compactIfSparse()

        #expect(popped == 9_990)
        #expect(heap.count == 10)
        #expect(heap.indexSlotCount == 32)
        heap.schedule(scopes[9_999], at: at(0))  // moved earlier: found through the rebuilt index
        heap.schedule(scopes[9_990], at: at(50_000))  // later: ignored
        #expect(heap.count == 10)
        var rest: [CacheScope] = []
        while let scope = heap.popMin(through: at(.max)) {
            rest.append(scope)
        }
        #expect(rest == [scopes[9_999]] + scopes[9_990..<9_999])
    }

    @Test("a scope popped and scheduled again is due once, at its new time")
    func rescheduledAfterPop() {
        let queue = ScopeDueQueue()
        queue.schedule(alice, at: at(50))
        queue.schedule(alice, at: at(10))
        #expect(queue.popDue(through: at(20)) == [alice])
        queue.schedule(alice, at: at(80))

        #expect(queue.popDue(through: at(60)).isEmpty)
        #expect(queue.popDue(through: at(80)) == [alice])
        #expect(queue.popDue(through: at(.max)).isEmpty)
    }
}
