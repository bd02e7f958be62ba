import CacheCore
import Testing

@Suite("Expiry index building blocks: MinHeap and ScopeDueQueue")
struct ExpiryIndexTests {
    @Test("a heap pops its elements in ascending order, however they were pushed or built")
    func heapOrder() {
        var generator = SplitMix(seed: 7)
        let values = (0..<1_000).map { _ in Int(generator.next() % 500) }
        var pushed = MinHeap<Int>()
        for value in values {
            pushed.push(value)
        }
        var built = MinHeap(unordered: values)
        var fromPushed: [Int] = []
        var fromBuilt: [Int] = []
        while let value = pushed.popMin() {
            fromPushed.append(value)
        }
        while let value = built.popMin() {
            fromBuilt.append(value)
        }
        #expect(fromPushed == values.sorted())
        #expect(fromBuilt == values.sorted())
        #expect(pushed.isEmpty)
    }

    @Test("popMin(if:) stops at the first element that is not due")
    func conditionalPop() {
        var heap = MinHeap(unordered: [5, 1, 9, 3])
        var due: [Int] = []
        while let value = heap.popMin(if: { $0 <= 4 }) {
            due.append(value)
        }
        #expect(due == [1, 3])
        #expect(heap.min == 5)
        #expect(heap.count == 2)
    }

    @Test("a scope is due at its earliest schedule; later schedules are ignored and popping forgets it")
    func queueKeepsEarliest() {
        let queue = ScopeDueQueue()
        queue.schedule(alice, at: CacheInstant(nanoseconds: 50))
        queue.schedule(alice, at: CacheInstant(nanoseconds: 80))
        queue.schedule(bob, at: CacheInstant(nanoseconds: 70))
        queue.schedule(bob, at: CacheInstant(nanoseconds: 20))

        #expect(queue.popDue(through: CacheInstant(nanoseconds: 10)).isEmpty)
        #expect(queue.popDue(through: CacheInstant(nanoseconds: 60)) == [bob, alice])
        #expect(queue.popDue(through: CacheInstant(nanoseconds: 1_000)).isEmpty)
        #expect(queue.scheduledCount == 0)
    }

    @Test("moving a scope earlier again and again leaves a bounded number of stale items")
    func queueGarbageBounded() {
        let queue = ScopeDueQueue()
        for step in 0..<10_000 {
            queue.schedule(alice, at: CacheInstant(nanoseconds: Int64(100_000 - step)))
        }
        #expect(queue.scheduledCount == 1)
        #expect(queue.heapCount <= 2 + 64)
        #expect(queue.popDue(through: CacheInstant(nanoseconds: 100_000)) == [alice])
    }
}
