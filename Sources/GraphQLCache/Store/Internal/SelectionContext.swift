import GraphQLLanguage
import Synchronization

/// What a walk over a selection needs besides the data: the operation's fragments, the request's variables
/// (defaults applied) and the store's configuration.
///
/// One context serves one read or write: it memoizes the storage keys of fields whose arguments name variables,
/// which plans leave unresolved so that one plan serves every value of those variables. A class: the reader, the
/// decoder and their steps each hold it, and copies of a struct of its members cost a retain and a release of each
/// (more than a thousand instructions of a one-object read, against one allocation).
final class SelectionContext {
    let fragments: [String: GraphQLFragmentDefinition]
    let variables: GraphQLJSONObject
    let configuration: GraphQLCacheConfiguration
    private let resolvedKeys = ResolvedStorageKeys()

    init(
        fragments: [String: GraphQLFragmentDefinition], variables: GraphQLJSONObject,
        configuration: GraphQLCacheConfiguration
    ) {
        self.fragments = fragments
        self.variables = variables
        self.configuration = configuration
    }

    /// The storage key of a collected field under this context's variables.
    func storageKey(of field: CollectedField) -> String {
        if let fixed = field.fixedStorageKey {
            return fixed
        }
        if let known = resolvedKeys.key(for: field.variableKeyID) {
            return known
        }
        let resolved: String
        if let recent = field.recentKey?.key(in: variables) {
            resolved = recent
        } else {
            resolved = storageKey(name: field.field.name, arguments: resolvedArguments(of: field.field))
            field.recentKey?.remember(resolved, in: variables)
        }
        resolvedKeys.store(resolved, for: field.variableKeyID)
        return resolved
    }

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
        return storageKey(name: field.name, arguments: resolvedArguments(of: field))
    }

    /// The field's arguments with variables resolved; absent ones left out.
    private func resolvedArguments(of field: GraphQLField) -> GraphQLJSONObject {
        var arguments = GraphQLJSONObject()
        for argument in field.arguments {
            if let value = GraphQLJSON(resolving: argument.value, variables: variables) {
                arguments[argument.name] = value
            }
        }
        return arguments
    }

    private func storageKey(name: String, arguments: GraphQLJSONObject) -> String {
        guard !arguments.isEmpty else {
            return name
        }
        return name + "(" + GraphQLJSON.object(arguments).jsonText(sortedKeys: true) + ")"
    }
}

/// The storage keys one walk resolved, by ``CollectedField/variableKeyID``: a list of 2,000 objects resolves its
/// variable arguments once. Owned by one walk on one thread, never shared. The first key is kept apart: most
/// operations have one field with variable arguments, and a dictionary for it would be allocated on every read.
private final class ResolvedStorageKeys {
    private var firstID = 0
    private var firstKey = ""
    private var others: [Int: String] = [:]

    func key(for id: Int) -> String? {
        if id == firstID {
            return firstKey
        }
        return others.isEmpty ? nil : others[id]
    }

    func store(_ key: String, for id: Int) {
        if firstID == 0 {
            firstID = id
            firstKey = key
        } else {
            others[id] = key
        }
    }
}

/// The storage key a field with variable arguments resolved last, and for which values of the variables its
/// arguments name: repeated reads with the same values (one user asking again) skip resolving and serializing the
/// arguments. Shared by every read of a plan.
final class RecentStorageKey: Sendable {
    /// The variables the field's arguments name, each once.
    private let variableNames: [String]
    private let recent = Mutex<(values: [GraphQLJSON?], key: String)?>(nil)

    init(field: GraphQLField) {
        var names: [String] = []
        for argument in field.arguments {
            argument.value.collectVariableNames(into: &names)
        }
        variableNames = names
    }

    /// The key remembered for the values `variables` gives the field's variables, if it is the last one resolved.
    func key(in variables: GraphQLJSONObject) -> String? {
        recent.withLock { recent in
            guard let recent else {
                return nil
            }
            for (index, name) in variableNames.enumerated() where variables[name] != recent.values[index] {
                return nil
            }
            return recent.key
        }
    }

    func remember(_ key: String, in variables: GraphQLJSONObject) {
        let values = variableNames.map { variables[$0] }
        recent.withLock { $0 = (values, key) }
    }
}
