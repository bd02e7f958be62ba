import Synchronization

/// What a walk over a selection needs besides the data: the operation's fragments, the request's variables
/// (defaults applied) and the store's configuration.
struct SelectionContext {
    let fragments: [String: GraphQLFragmentDefinition]
    let variables: GraphQLJSONObject
    let configuration: GraphQLCacheConfiguration

    /// Whether `@skip`/`@include` keep a selection.
    func isIncluded(_ directives: [GraphQLDirective]) throws(CollectionFailure) -> Bool {
        for directive in directives where directive.name == "skip" || directive.name == "include" {
            guard let condition = directive.argument(named: "if") else {
                throw .invalidVariables("@\(directive.name) has no 'if' argument")
            }
            let value: Bool
            switch condition {
            case .boolean(let flag):
                value = flag
            case .variable(let name):
                guard case .bool(let flag) = variables[name] else {
                    throw .invalidVariables("@\(directive.name)(if: $\(name)) needs a boolean variable '\(name)'")
                }
                value = flag
            default:
                throw .invalidVariables("@\(directive.name)(if:) needs a boolean")
            }
            if directive.name == "skip" ? value : !value {
                return false
            }
        }
        return true
    }

    /// `name` alone, or `name({sorted arguments as JSON})` once variables are resolved; absent arguments (a
    /// variable the request does not provide) are left out.
    func storageKey(for field: GraphQLField) -> String {
        guard !field.arguments.isEmpty else {
            return field.name
        }
        var arguments = GraphQLJSONObject()
        for argument in field.arguments {
            if let value = GraphQLJSON(resolving: argument.value, variables: variables) {
                arguments[argument.name] = value
            }
        }
        guard !arguments.isEmpty else {
            return field.name
        }
        return field.name + "(" + GraphQLJSON.object(arguments).jsonText(sortedKeys: true) + ")"
    }
}

/// Why fields could not be collected for an object.
enum CollectionFailure: Error {
    /// A type condition must be decided but the object's typename is unknown.
    case needsTypename(condition: String)
    /// `@skip`/`@include` cannot be evaluated.
    case invalidVariables(String)
}

/// One response key of an object after field collection.
struct CollectedField {
    let responseKey: String
    let name: String
    let storageKey: String
    /// The merged sub-selection, for fields of object type; `nil` for leaves.
    let child: SelectionNode?
    let isTypename: Bool
    /// Where the field is expected among a record's stored fields (collected order without `__typename`,
    /// which is kept on the record, not as a field): the lookup hint.
    let storedPosition: Int
}

/// The fields an object of one type gets from a selection, in response order, with a lookup by response key.
/// Immutable once built, so plans cached across reads share it between threads.
final class CollectedFields: Sendable {
    let fields: [CollectedField]
    let positions: [String: Int]
    /// Whether two response keys share a storage key (`a: balance, b: balance`), so a draft must check before
    /// appending.
    let hasRepeatedStorageKeys: Bool

    init(fields: [CollectedField]) {
        self.fields = fields
        var positions: [String: Int] = [:]
        positions.reserveCapacity(fields.count)
        var storageKeys = Set<String>()
        var repeated = false
        for (position, field) in fields.enumerated() {
            positions[field.responseKey] = position
            if !field.isTypename, !storageKeys.insert(field.storageKey).inserted {
                repeated = true
            }
        }
        self.positions = positions
        self.hasRepeatedStorageKeys = repeated
    }
}

/// One position of an operation's selection tree: the selection sets merged there (a response key selected
/// twice merges its sub-selections), with the collected fields memoized per typename.
///
/// Built lazily and safe to share between threads: a list of 2,000 objects of one type collects its fields
/// once, and a plan kept in the store's ``SelectionPlanCache`` collects them once for every later read. Every
/// call must pass the same `SelectionContext` (the plan cache keys plans by everything the context holds).
/// The first typename seen is read without a lock (most positions only ever see one type); others take a lock.
final class SelectionNode: Sendable {
    /// Collected fields and the typename they were collected for.
    private final class Typed: Sendable {
        let typename: String?
        let collected: CollectedFields

        init(typename: String?, collected: CollectedFields) {
            self.typename = typename
            self.collected = collected
        }
    }

    private final class TypenameKeys: Sendable {
        let keys: [String]

        init(_ keys: [String]) {
            self.keys = keys
        }
    }

    let selectionSets: [GraphQLSelectionSet]
    private let first = AtomicLazyReference<Typed>()
    private let others = Mutex<[String?: CollectedFields]>([:])
    private let typenameKeys = AtomicLazyReference<TypenameKeys>()

    init(selectionSets: [GraphQLSelectionSet]) {
        self.selectionSets = selectionSets
    }

    /// The response keys that carry an object's typename here: `__typename`, plus the aliases of `__typename`
    /// selections that apply whatever the type (`kind: __typename`), so an aliased typename still names the
    /// object's type before its fields are collected.
    var typenameResponseKeys: [String] {
        if let known = typenameKeys.load() {
            return known.keys
        }
        var keys = ["__typename"]
        var pending = selectionSets
        while let selectionSet = pending.popLast() {
            for selection in selectionSet.selections {
                switch selection {
                case .field(let field) where field.name == "__typename" && field.directives.isEmpty:
                    if let alias = field.alias, !keys.contains(alias) {
                        keys.append(alias)
                    }
                case .inlineFragment(let fragment) where fragment.typeCondition == nil && fragment.directives.isEmpty:
                    pending.append(fragment.selectionSet)
                default:
                    break
                }
            }
        }
        return typenameKeys.storeIfNil(TypenameKeys(keys)).keys
    }

    /// The fields for an object of type `typename` (unknown: `nil`, fine until a type condition must be
    /// decided), following the specification's CollectFields.
    func fields(
        for typename: String?,
        in context: SelectionContext
    ) throws(CollectionFailure) -> CollectedFields {
        if let first = first.load(), first.typename == typename {
            return first.collected
        }
        if let known = others.withLock({ $0[typename] }) {
            return known
        }
        let collected = try collect(typename: typename, context: context)
        // Two threads may collect the same typename at once: the first stored wins, so later reads share its
        // child nodes (and their memoized fields).
        let stored = first.storeIfNil(Typed(typename: typename, collected: collected))
        if stored.typename == typename {
            return stored.collected
        }
        return others.withLock { others in
            if let raced = others[typename] {
                return raced
            }
            others[typename] = collected
            return collected
        }
    }

    private func collect(typename: String?, context: SelectionContext) throws(CollectionFailure) -> CollectedFields {
        var collector = FieldCollector(typename: typename, context: context)
        for selectionSet in selectionSets {
            try collector.visit(selectionSet)
        }
        var fields: [CollectedField] = []
        fields.reserveCapacity(collector.order.count)
        var storedPosition = 0
        for responseKey in collector.order {
            let group = collector.groups[responseKey]!
            let isTypename = group.field.name == "__typename"
            fields.append(
                CollectedField(
                    responseKey: responseKey,
                    name: group.field.name,
                    storageKey: context.storageKey(for: group.field),
                    child: group.selectionSets.isEmpty ? nil : SelectionNode(selectionSets: group.selectionSets),
                    isTypename: isTypename,
                    storedPosition: storedPosition
                )
            )
            if !isTypename {
                storedPosition += 1
            }
        }
        return CollectedFields(fields: fields)
    }
}

/// The CollectFields walk for one object type.
private struct FieldCollector {
    let typename: String?
    let context: SelectionContext
    var order: [String] = []
    var groups: [String: (field: GraphQLField, selectionSets: [GraphQLSelectionSet])] = [:]
    var visitedFragments = Set<String>()

    init(typename: String?, context: SelectionContext) {
        self.typename = typename
        self.context = context
    }

    mutating func visit(_ selectionSet: GraphQLSelectionSet) throws(CollectionFailure) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                guard try context.isIncluded(field.directives) else {
                    continue
                }
                let responseKey = field.responseKey
                if groups[responseKey] == nil {
                    order.append(responseKey)
                    groups[responseKey] = (field, [])
                }
                if let selectionSet = field.selectionSet {
                    groups[responseKey]!.selectionSets.append(selectionSet)
                }
            case .fragmentSpread(let spread):
                guard try context.isIncluded(spread.directives), visitedFragments.insert(spread.name).inserted,
                    let fragment = context.fragments[spread.name],
                    try applies(fragment.typeCondition)
                else {
                    continue
                }
                try visit(fragment.selectionSet)
            case .inlineFragment(let fragment):
                guard try context.isIncluded(fragment.directives) else {
                    continue
                }
                if let condition = fragment.typeCondition, try !applies(condition) {
                    continue
                }
                try visit(fragment.selectionSet)
            }
        }
    }

    private func applies(_ condition: String) throws(CollectionFailure) -> Bool {
        guard let typename else {
            throw .needsTypename(condition: condition)
        }
        return context.configuration.typeCondition(condition, matches: typename)
    }
}
