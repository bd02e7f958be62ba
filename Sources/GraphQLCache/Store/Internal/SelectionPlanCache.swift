import GraphQLLanguage
import Synchronization

/// The selection plans of recent reads (an operation's root `SelectionNode`, whose collected fields fill in as
/// reads meet typenames), so a cached read does not collect its fields again on every call.
///
/// A plan depends on the prepared document (its operation and fragments; `anchor`, an object held for as long
/// as its entries so its identity is never reused by another document) and on the values of the variables that
/// `@include(if: $v)`/`@skip(if: $v)` use, and on nothing else: the storage keys of fields with variable
/// arguments are resolved per read (`SelectionContext/storageKey(of:)`), so one plan serves every user's ids.
/// Fragments' type conditions are decided per typename inside the plan, and the store's
/// `GraphQLCacheConfiguration` is fixed for the store that owns the cache. Bounded: past ``maximumPlans`` the
/// oldest plan goes (first in, first out).
final class SelectionPlanCache: Sendable {
    private struct Key: Hashable {
        let anchor: ObjectIdentifier
        /// The values of the document's condition variables, in ``DocumentPlans/conditionVariables`` order
        /// (`nil`: not given).
        let conditions: [GraphQLJSON?]
    }

    /// What the cache knows of one document: the variables its directives test, and its plans by their values.
    ///
    /// A class, only ever touched under the cache's lock: a read finds its plan through it without copying the entry
    /// out of the dictionary (a retain and a release of each member).
    private final class DocumentPlans {
        /// Held so that `Key.anchor` cannot name another object while the entry exists.
        let anchor: any AnyObject & Sendable
        let conditionVariables: [String]
        var plans: [[GraphQLJSON?]: SelectionNode] = [:]

        init(anchor: any AnyObject & Sendable, conditionVariables: [String]) {
            self.anchor = anchor
            self.conditionVariables = conditionVariables
        }

        /// The plan for these values of the condition variables. Without condition variables every key is `[]`, so
        /// the one plan there is, found without hashing the key.
        func plan(for variables: GraphQLJSONObject) -> SelectionNode? {
            if conditionVariables.isEmpty {
                return plans.first?.value
            }
            return plans[conditionVariables.map { variables[$0] }]
        }
    }

    private struct State {
        var documents: [ObjectIdentifier: DocumentPlans] = [:]
        var count = 0
        /// Keys in insertion order; `head` is the oldest still in use.
        var order: [Key?] = []
        var head = 0

        mutating func remove(_ key: Key) {
            guard let document = documents[key.anchor], document.plans.removeValue(forKey: key.conditions) != nil
            else {
                return
            }
            count -= 1
            if document.plans.isEmpty {
                documents[key.anchor] = nil
            }
        }
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
        state.withLock { $0.count }
    }

    /// The plan of `operation` for the document `anchor` and the resolved `variables`: the cached one, or a new
    /// one kept for the next read.
    func plan(
        anchor: any AnyObject & Sendable,
        variables: GraphQLJSONObject,
        operation: GraphQLPreparedOperation
    ) -> SelectionNode {
        let id = ObjectIdentifier(anchor)
        let known: (names: [String], node: SelectionNode?)? = state.withLock { state in
            guard let document = state.documents[id] else {
                return nil
            }
            return (document.conditionVariables, document.plan(for: variables))
        }
        if let node = known?.node {
            return node
        }
        let names = known?.names ?? Self.conditionVariables(of: operation)
        let key = Key(anchor: id, conditions: names.map { variables[$0] })
        let node = SelectionNode(selectionSets: [operation.operation.selectionSet])
        let maximum = maximumPlans
        return state.withLock { state in
            if let raced = state.documents[id]?.plans[key.conditions] {
                return raced
            }
            while state.count >= maximum, state.head < state.order.count {
                if let oldest = state.order[state.head] {
                    state.remove(oldest)
                }
                state.order[state.head] = nil
                state.head += 1
            }
            if state.count >= maximum {
                // Only a key unequal to itself (a NaN condition value) leaves an entry the queue cannot remove.
                state.documents.removeAll()
                state.count = 0
                state.order.removeAll()
                state.head = 0
            }
            if state.head > maximum {
                // Keep the queue's storage proportional to the bound.
                state.order.removeFirst(state.head)
                state.head = 0
            }
            let document: DocumentPlans
            if let known = state.documents[id] {
                document = known
            } else {
                document = DocumentPlans(anchor: anchor, conditionVariables: names)
                state.documents[id] = document
            }
            document.plans[key.conditions] = node
            state.count += 1
            state.order.append(key)
            return node
        }
    }

    /// The variables `@include`/`@skip` of the operation and its fragments test, sorted, each once.
    static func conditionVariables(of operation: GraphQLPreparedOperation) -> [String] {
        var names = Set<String>()
        func visit(_ directives: [GraphQLDirective]) {
            for directive in directives where directive.name == "skip" || directive.name == "include" {
                if case .variable(let name) = directive.argument(named: "if") {
                    names.insert(name)
                }
            }
        }
        var pending = [operation.operation.selectionSet] + operation.fragments.values.map(\.selectionSet)
        while let selectionSet = pending.popLast() {
            for selection in selectionSet.selections {
                switch selection {
                case .field(let field):
                    visit(field.directives)
                    if let child = field.selectionSet {
                        pending.append(child)
                    }
                case .fragmentSpread(let spread):
                    visit(spread.directives)
                case .inlineFragment(let fragment):
                    visit(fragment.directives)
                    pending.append(fragment.selectionSet)
                }
            }
        }
        return names.sorted()
    }
}
