import CacheCore
import Testing

@Suite("LRUList")
struct LRUListTests {
    @Test("elements come out least recent first, and moving one to the front reorders it")
    func order() {
        var list = LRUList<String>()
        let a = list.insertAsMostRecent("a")
        _ = list.insertAsMostRecent("b")
        _ = list.insertAsMostRecent("c")
        #expect(list.handlesFromMostRecent.map { list[$0] } == ["c", "b", "a"])

        list.moveToMostRecent(a)

        #expect(list.handlesFromMostRecent.map { list[$0] } == ["a", "c", "b"])
        #expect(list[list.leastRecent!] == "b")
        #expect(list[list.mostRecent!] == "a")
    }

    @Test("removing from the middle, the front and the back keeps the links consistent")
    func removals() {
        var list = LRUList<Int>()
        let handles = (0..<5).map { list.insertAsMostRecent($0) }

        #expect(list.remove(handles[2]) == 2)
        #expect(list.remove(handles[4]) == 4)
        #expect(list.remove(handles[0]) == 0)

        #expect(list.handlesFromMostRecent.map { list[$0] } == [3, 1])
        #expect(list.count == 2)
        #expect(list[list.leastRecent!] == 1)
    }

    @Test("freed slots are reused instead of growing the slab")
    func slotReuse() {
        var list = LRUList<Int>()
        let first = list.insertAsMostRecent(1)
        list.remove(first)
        let second = list.insertAsMostRecent(2)

        #expect(second == first)
        #expect(list.count == 1)
        #expect(list[second] == 2)
    }

    @Test("an emptied list has no ends and accepts new elements")
    func emptyAgain() {
        var list = LRUList<Int>()
        let only = list.insertAsMostRecent(1)
        list.moveToMostRecent(only)
        list.remove(only)

        #expect(list.isEmpty)
        #expect(list.leastRecent == nil)
        #expect(list.mostRecent == nil)
        let next = list.insertAsMostRecent(7)
        #expect(list.leastRecent == next)
    }

    @Test("update changes an element in place and walking towards the least recent end visits every element")
    func updateAndWalk() {
        var list = LRUList<Int>()
        let a = list.insertAsMostRecent(1)
        _ = list.insertAsMostRecent(2)
        list.update(a) { $0 *= 10 }

        var walked: [Int] = []
        var cursor = list.mostRecent
        while let handle = cursor {
            walked.append(list[handle])
            cursor = list.lessRecent(than: handle)
        }
        #expect(walked == [2, 10])
    }
}
