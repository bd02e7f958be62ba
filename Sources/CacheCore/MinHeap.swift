/// A binary min-heap over an array: the smallest element in O(1), push and pop in O(log n), no allocation once
/// the array has grown.
///
/// The stores keep their expiry and write-time indexes in heaps: a purge pops what is due, in order, and stops at
/// the first element that is not, so its cost follows what it removes rather than what is held.
public struct MinHeap<Element: Comparable & Sendable>: Sendable {
    private var storage: [Element]

    /// An empty heap.
    public init() {
        storage = []
    }

    /// A heap of `elements` in any order, built in O(n).
    public init(unordered elements: [Element]) {
        storage = elements
        var index = storage.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    /// Elements held.
    public var count: Int {
        storage.count
    }

    public var isEmpty: Bool {
        storage.isEmpty
    }

    /// The smallest element, if any.
    public var min: Element? {
        storage.first
    }

    /// Adds `element`.
    public mutating func push(_ element: Element) {
        storage.append(element)
        siftUp(from: storage.count - 1)
    }

    /// Removes and returns the smallest element.
    @discardableResult
    public mutating func popMin() -> Element? {
        guard !storage.isEmpty else {
            return nil
        }
        storage.swapAt(0, storage.count - 1)
        let smallest = storage.removeLast()
        if !storage.isEmpty {
            siftDown(from: 0)
        }
        return smallest
    }

    /// Removes and returns the smallest element if `isDue` accepts it.
    public mutating func popMin(if isDue: (Element) -> Bool) -> Element? {
        guard let smallest = storage.first, isDue(smallest) else {
            return nil
        }
        return popMin()
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else {
                return
            }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < storage.count else {
                return
            }
            let right = left + 1
            let smaller = right < storage.count && storage[right] < storage[left] ? right : left
            guard storage[smaller] < storage[parent] else {
                return
            }
            storage.swapAt(smaller, parent)
            parent = smaller
        }
    }
}
