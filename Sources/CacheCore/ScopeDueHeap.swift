/// The state of a ``ScopeDueQueue``: a binary min-heap of scopes by instant, each scope in it at most once, with an
/// open-addressing index from scope to heap position, so an earlier schedule moves the scope's item in place.
///
/// Per scheduled scope this holds one 32-byte heap item and one 4-byte index slot (the index is kept at most 3/4
/// full): no dictionary entry, no token and no stale items of earlier schedules, so the heap holds exactly the
/// scheduled scopes. Plain state: the queue guards it with its lock.
///
/// Positions are `Int32`: 2³¹ scheduled scopes would take 64 GiB for the heap alone, far past any process budget
/// (each scope also holds a partition of at least hundreds of bytes).
struct ScopeDueHeap: Sendable {
    private struct Item: Sendable {
        var instant: CacheInstant
        let scope: CacheScope
        /// The index slot holding this item's heap position.
        var slot: Int
    }

    private enum Probe {
        case found(slot: Int)
        case vacant(slot: Int)
    }

    private static let emptySlot: Int32 = -1
    private static let deletedSlot: Int32 = -2
    private static let minimumSlots = 8

    private var items: [Item] = []
    /// Linear probing over a power-of-two count of slots, each a heap position, `emptySlot` or `deletedSlot`.
    private var slots: [Int32] = []
    private var deletedSlots = 0

    /// Scopes scheduled.
    var count: Int {
        items.count
    }

    /// Slots of the index, for tests of its bounds.
    var indexSlotCount: Int {
        slots.count
    }

    /// Makes `scope` due at `instant` at the latest: a scope not held is added, one held later is moved earlier in
    /// place, one held at or before `instant` is left alone.
    mutating func schedule(_ scope: CacheScope, at instant: CacheInstant) {
        reserveSlot()
        switch probe(for: scope) {
        case .found(let slot):
            let position = Int(slots[slot])
            guard instant < items[position].instant else {
                return
            }
            items[position].instant = instant
            siftUp(from: position)
        case .vacant(let slot):
            if slots[slot] == Self.deletedSlot {
                deletedSlots -= 1
            }
            slots[slot] = Int32(items.count)
            items.append(Item(instant: instant, scope: scope, slot: slot))
            siftUp(from: items.count - 1)
        }
    }

    /// Removes and returns the earliest scope if it is due at or before `instant`.
    mutating func popMin(through instant: CacheInstant) -> CacheScope? {
        guard let first = items.first, first.instant <= instant else {
            return nil
        }
        vacate(first.slot)
        let last = items.removeLast()
        if !items.isEmpty {
            place(last, at: 0)
            siftDown(from: 0)
        }
        return first.scope
    }

    /// Gives memory back after pops left the heap and index mostly empty (neither shrinks by itself).
    mutating func compactIfSparse() {
        if items.capacity > 64, items.count * 4 < items.capacity {
            var kept: [Item] = []
            kept.reserveCapacity(items.count)
            kept.append(contentsOf: items)
            items = kept
        }
        if slots.count > Self.minimumSlots, items.count * 8 < slots.count || deletedSlots > items.count {
            rebuildIndex(slotCount: Self.slotCount(for: items.count))
        }
    }

    // MARK: - Index

    private func probe(for scope: CacheScope) -> Probe {
        let mask = slots.count - 1
        var slot = scope.hashValue & mask
        var firstDeleted: Int?
        // Ends: the index always keeps an empty slot (at most 3/4 of them live or deleted).
        while true {
            let entry = slots[slot]
            if entry == Self.emptySlot {
                return .vacant(slot: firstDeleted ?? slot)
            }
            if entry == Self.deletedSlot {
                firstDeleted = firstDeleted ?? slot
            } else if items[Int(entry)].scope == scope {
                return .found(slot: slot)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Frees a slot: empty when the next one is (so are the deleted ones just before it), else marked deleted so
    /// probes go on past it.
    private mutating func vacate(_ slot: Int) {
        let mask = slots.count - 1
        guard slots[(slot + 1) & mask] == Self.emptySlot else {
            slots[slot] = Self.deletedSlot
            deletedSlots += 1
            return
        }
        slots[slot] = Self.emptySlot
        var previous = (slot - 1) & mask
        while slots[previous] == Self.deletedSlot {
            slots[previous] = Self.emptySlot
            deletedSlots -= 1
            previous = (previous - 1) & mask
        }
    }

    /// Makes room for one more scope: past 3/4 live or deleted slots, the index is rebuilt (larger if needed).
    private mutating func reserveSlot() {
        if (items.count + deletedSlots + 1) * 4 > slots.count * 3 {
            rebuildIndex(slotCount: Self.slotCount(for: items.count + 1))
        }
    }

    /// The smallest power of two at least twice `count`: a rebuilt index is at most half full, so the next rebuild
    /// is at least a quarter of its slots away (O(1) amortized per schedule).
    private static func slotCount(for count: Int) -> Int {
        var slotCount = minimumSlots
        while slotCount < 2 * count {
            slotCount *= 2
        }
        return slotCount
    }

    private mutating func rebuildIndex(slotCount: Int) {
        slots = Array(repeating: Self.emptySlot, count: slotCount)
        deletedSlots = 0
        let mask = slotCount - 1
        for position in items.indices {
            var slot = items[position].scope.hashValue & mask
            while slots[slot] != Self.emptySlot {
                slot = (slot + 1) & mask
            }
            slots[slot] = Int32(position)
            items[position].slot = slot
        }
    }

    // MARK: - Heap

    private mutating func place(_ item: Item, at position: Int) {
        items[position] = item
        slots[item.slot] = Int32(position)
    }

    private mutating func siftUp(from start: Int) {
        let moving = items[start]
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard moving.instant < items[parent].instant else {
                break
            }
            place(items[parent], at: child)
            child = parent
        }
        place(moving, at: child)
    }

    private mutating func siftDown(from start: Int) {
        let moving = items[start]
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < items.count else {
                break
            }
            let right = left + 1
            let earlier = right < items.count && items[right].instant < items[left].instant ? right : left
            guard items[earlier].instant < moving.instant else {
                break
            }
            place(items[earlier], at: parent)
            parent = earlier
        }
        place(moving, at: parent)
    }
}
