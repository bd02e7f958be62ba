/// A least-recently-used order over elements stored in one contiguous slab.
///
/// An intrusive doubly-linked list whose links are slab indices: moving an element to the front, removing it
/// and finding the least recent one are O(1) with no allocation once the slab has grown, and freed slots are
/// reused. `Array.remove(at:)`-based LRU would be O(n) per hit, which a per-request cache cannot afford.
public struct LRUList<Element: Sendable>: Sendable {
    /// Identifies an element's slot; valid until that element is removed.
    public struct Handle: Hashable, Sendable {
        @usableFromInline let index: Int32

        @inlinable init(index: Int32) {
            self.index = index
        }
    }

    @usableFromInline
    struct Node: Sendable {
        @usableFromInline var element: Element?
        @usableFromInline var previous: Int32
        @usableFromInline var next: Int32

        @inlinable init(element: Element?, previous: Int32, next: Int32) {
            self.element = element
            self.previous = previous
            self.next = next
        }
    }

    @inlinable static var none: Int32 { -1 }

    @usableFromInline var nodes: [Node] = []
    /// Head of the chain of free slots, linked through `next`.
    @usableFromInline var freeHead: Int32 = none
    @usableFromInline var mostRecentIndex: Int32 = none
    @usableFromInline var leastRecentIndex: Int32 = none

    /// Elements held.
    @inlinable public var count: Int { Int(storedCount) }
    /// 32 bits like the links (a slab holds at most `Int32.max` slots), so the header packs into three words.
    @usableFromInline var storedCount: Int32 = 0

    @inlinable public init() {}

    @inlinable
    public var isEmpty: Bool {
        count == 0
    }

    /// The element used longest ago: the next to evict.
    @inlinable
    public var leastRecent: Handle? {
        leastRecentIndex == Self.none ? nil : Handle(index: leastRecentIndex)
    }

    /// The element used last.
    @inlinable
    public var mostRecent: Handle? {
        mostRecentIndex == Self.none ? nil : Handle(index: mostRecentIndex)
    }

    /// Adds `element` as the most recently used.
    @inlinable
    public mutating func insertAsMostRecent(_ element: Element) -> Handle {
        let index: Int32
        if freeHead != Self.none {
            index = freeHead
            freeHead = nodes[Int(index)].next
            nodes[Int(index)] = Node(element: element, previous: Self.none, next: mostRecentIndex)
        } else {
            precondition(nodes.count < Int(Int32.max), "LRUList is full")
            index = Int32(nodes.count)
            nodes.append(Node(element: element, previous: Self.none, next: mostRecentIndex))
        }
        if mostRecentIndex != Self.none {
            nodes[Int(mostRecentIndex)].previous = index
        } else {
            leastRecentIndex = index
        }
        mostRecentIndex = index
        storedCount += 1
        return Handle(index: index)
    }

    /// Marks the element as just used.
    @inlinable
    public mutating func moveToMostRecent(_ handle: Handle) {
        let index = handle.index
        guard index != mostRecentIndex else {
            return
        }
        unlink(index)
        nodes[Int(index)].previous = Self.none
        nodes[Int(index)].next = mostRecentIndex
        nodes[Int(mostRecentIndex)].previous = index
        mostRecentIndex = index
        if leastRecentIndex == Self.none {
            leastRecentIndex = index
        }
    }

    /// Removes the element and frees its slot for reuse.
    @inlinable @discardableResult
    public mutating func remove(_ handle: Handle) -> Element {
        let index = handle.index
        unlink(index)
        let element = nodes[Int(index)].element.take()!
        nodes[Int(index)].previous = Self.none
        nodes[Int(index)].next = freeHead
        freeHead = index
        storedCount -= 1
        return element
    }

    /// The element behind `handle`.
    @inlinable
    public subscript(handle: Handle) -> Element {
        get {
            nodes[Int(handle.index)].element!
        }
        set {
            nodes[Int(handle.index)].element = newValue
        }
    }

    /// Changes the element in place (no copy of the element while it is modified).
    @inlinable
    public mutating func update<Result>(_ handle: Handle, _ body: (inout Element) -> Result) -> Result {
        body(&nodes[Int(handle.index)].element!)
    }

    /// The element used just before `handle`'s (towards the least recent end).
    @inlinable
    public func lessRecent(than handle: Handle) -> Handle? {
        let next = nodes[Int(handle.index)].next
        return next == Self.none ? nil : Handle(index: next)
    }

    /// The element used just after `handle`'s (towards the most recent end).
    @inlinable
    public func moreRecent(than handle: Handle) -> Handle? {
        let previous = nodes[Int(handle.index)].previous
        return previous == Self.none ? nil : Handle(index: previous)
    }

    /// Handles from most to least recently used.
    @inlinable
    public var handlesFromMostRecent: [Handle] {
        var handles: [Handle] = []
        handles.reserveCapacity(count)
        var index = mostRecentIndex
        while index != Self.none {
            handles.append(Handle(index: index))
            index = nodes[Int(index)].next
        }
        return handles
    }

    /// Detaches `index` from its neighbours, fixing the ends of the list.
    @inlinable
    mutating func unlink(_ index: Int32) {
        let previous = nodes[Int(index)].previous
        let next = nodes[Int(index)].next
        if previous != Self.none {
            nodes[Int(previous)].next = next
        } else {
            mostRecentIndex = next
        }
        if next != Self.none {
            nodes[Int(next)].previous = previous
        } else {
            leastRecentIndex = previous
        }
    }
}
