import Synchronization

/// The selection plans of recent reads (an operation's root `SelectionNode`, whose collected fields fill in as
/// reads meet typenames), so a cached read does not collect its fields again on every call.
///
/// What a plan depends on is its key: the prepared document (its operation and fragments; `anchor`, an object
/// held for as long as its entry so its identity is never reused by another document), and the request's
/// resolved variables, which decide `@include(if: $v)`/`@skip(if: $v)` and the storage keys of fields with
/// variable arguments. Fragments' type conditions are decided per typename inside the plan, and the store's
/// `GraphQLCacheConfiguration` is fixed for the store that owns the cache. Bounded: past ``maximumPlans`` the
/// oldest plan goes (first in, first out).
final class SelectionPlanCache: Sendable {
    private struct Key: Hashable {
        let anchor: ObjectIdentifier
        let variables: GraphQLJSONObject
    }

    private struct Entry {
        /// Held so that `Key.anchor` cannot name another object while the entry exists.
        let anchor: any AnyObject & Sendable
        let node: SelectionNode
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Keys in insertion order; `head` is the oldest still in use.
        var order: [Key?] = []
        var head = 0
    }

    /// How many plans are kept at most.
    let maximumPlans: Int
    private let state = Mutex(State())

    /// - Parameter maximumPlans: plans kept at most (at least 1).
    init(maximumPlans: Int) {
        self.maximumPlans = max(1, maximumPlans)
    }

    /// Plans held now.
    var count: Int {
        state.withLock { $0.entries.count }
    }

    /// The plan of `selectionSet` for the document `anchor` and the resolved `variables`: the cached one, or a
    /// new one kept for the next read.
    func plan(
        anchor: any AnyObject & Sendable,
        variables: GraphQLJSONObject,
        selectionSet: GraphQLSelectionSet
    ) -> SelectionNode {
        let key = Key(anchor: ObjectIdentifier(anchor), variables: variables)
        if let known = state.withLock({ $0.entries[key]?.node }) {
            return known
        }
        let node = SelectionNode(selectionSets: [selectionSet])
        let maximum = maximumPlans
        return state.withLock { state in
            if let raced = state.entries[key] {
                return raced.node
            }
            while state.entries.count >= maximum, state.head < state.order.count {
                if let oldest = state.order[state.head] {
                    state.entries[oldest] = nil
                }
                state.order[state.head] = nil
                state.head += 1
            }
            if state.entries.count >= maximum {
                // Only a key unequal to itself (a NaN variable) leaves an entry the queue cannot remove.
                state.entries.removeAll()
                state.order.removeAll()
                state.head = 0
            }
            if state.head > maximum {
                // Keep the queue's storage proportional to the bound.
                state.order.removeFirst(state.head)
                state.head = 0
            }
            state.entries[key] = Entry(anchor: anchor, node: node)
            state.order.append(key)
            return node
        }
    }
}
