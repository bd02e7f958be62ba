import GraphQLLanguage
import Synchronization

/// Numbers the collected fields whose storage keys depend on variables, process-wide, for the per-walk memo.
private let variableKeyCounter = Atomic<Int>(0)

extension GraphQLField {
    /// Whether an argument's value names a variable anywhere inside it (lists and objects included).
    var argumentsReferToVariables: Bool {
        arguments.contains { $0.value.refersToVariables }
    }
}

extension GraphQLValueLiteral {
    /// Appends the names of the variables the literal is or contains, each once.
    func collectVariableNames(into names: inout [String]) {
        switch self {
        case .variable(let name):
            if !names.contains(name) {
                names.append(name)
            }
        case .list(let elements):
            for element in elements {
                element.collectVariableNames(into: &names)
            }
        case .object(let fields):
            for field in fields {
                field.value.collectVariableNames(into: &names)
            }
        default:
            break
        }
    }

    /// Whether the literal is or contains a variable.
    var refersToVariables: Bool {
        switch self {
        case .variable: true
        case .list(let elements): elements.contains { $0.refersToVariables }
        case .object(let fields): fields.contains { $0.value.refersToVariables }
        default: false
        }
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
///
/// A class, not a struct: reads walk these for every object they visit, and copying a struct of four strings, the
/// field and two references out of the array costs a retain and a release of each (a third of a 2,100-object read
/// into structs went to that); a reference costs one of each.
final class CollectedField: Sendable {
    let responseKey: String
    let name: String
    /// The storage key when no argument names a variable; otherwise `nil`, and the key is resolved per walk
    /// (``SelectionContext/storageKey(of:)``), so the plan holds for every value of those variables.
    let fixedStorageKey: String?
    /// The field as selected (its arguments resolve the storage key when it is not fixed).
    let field: GraphQLField
    /// The field's number in the per-walk memo of resolved keys (meaningful when the key is not fixed).
    let variableKeyID: Int
    /// The key resolved last, across reads; `nil` when the key is fixed.
    let recentKey: RecentStorageKey?
    /// The merged sub-selection, for fields of object type; `nil` for leaves.
    let child: SelectionNode?
    let isTypename: Bool
    /// Where the field is expected among a record's stored fields (collected order without `__typename`,
    /// which is kept on the record, not as a field): the lookup hint.
    let storedPosition: Int

    init(
        responseKey: String, name: String, fixedStorageKey: String?, field: GraphQLField, variableKeyID: Int,
        recentKey: RecentStorageKey?, child: SelectionNode?, isTypename: Bool, storedPosition: Int
    ) {
        self.responseKey = responseKey
        self.name = name
        self.fixedStorageKey = fixedStorageKey
        self.field = field
        self.variableKeyID = variableKeyID
        self.recentKey = recentKey
        self.child = child
        self.isTypename = isTypename
        self.storedPosition = storedPosition
    }
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
        // Fields with variable arguments may share a storage key under some values (`a: f(x: $a), b: f(x: $b)`):
        // any two of one name where one is not fixed count as repeated.
        var storageKeys = Set<String>()
        var variableNames = Set<String>()
        var fixedNames = Set<String>()
        var repeated = false
        for (position, field) in fields.enumerated() {
            positions[field.responseKey] = position
            guard !field.isTypename else {
                continue
            }
            if let fixed = field.fixedStorageKey {
                if !storageKeys.insert(fixed).inserted || variableNames.contains(field.name) {
                    repeated = true
                }
                fixedNames.insert(field.name)
            } else {
                if !variableNames.insert(field.name).inserted || fixedNames.contains(field.name) {
                    repeated = true
                }
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
/// call must pass contexts that agree on fragments, configuration and the values of the variables `@include`/
/// `@skip` use (the plan cache keys plans by those); other variables only reach storage keys, resolved per walk.
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
    private let first = OnceReference<Typed>()
    private let others = Mutex<[String?: CollectedFields]>([:])
    private let typenameKeys = OnceReference<TypenameKeys>()

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

    /// The fields collected for the first typename seen here when `typename` is that one: one atomic load and no
    /// context, for the walks that reach the same position once per record (`nil`: ask ``fields(for:in:)``).
    func memoizedFields(for typename: String?) -> CollectedFields? {
        guard let first = first.load(), first.typename == typename else {
            return nil
        }
        return first.collected
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
            let isFixed = !group.field.argumentsReferToVariables
            fields.append(
                CollectedField(
                    responseKey: responseKey,
                    name: group.field.name,
                    fixedStorageKey: isFixed ? context.storageKey(for: group.field) : nil,
                    field: group.field,
                    variableKeyID: isFixed ? 0 : variableKeyCounter.wrappingAdd(1, ordering: .relaxed).newValue,
                    recentKey: isFixed ? nil : RecentStorageKey(field: group.field),
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
