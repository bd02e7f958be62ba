extension GraphQLExecutableValidator {
    /// NoFragmentCycles: a depth-first walk of the spread graph that reports the first cycle it closes.
    package func checkNoFragmentCycles() throws(GraphQLLanguageError) {
        var visited = Set<String>()
        for fragment in document.fragments where !visited.contains(fragment.name) {
            // Each frame is a fragment being explored and the index of its next spread to follow.
            var stack: [(name: String, spreads: [GraphQLFragmentSpread], next: Int)] = []
            var path: [GraphQLFragmentSpread] = []
            var pathIndexByName: [String: Int] = [:]
            visited.insert(fragment.name)
            stack.append((fragment.name, Self.spreads(in: fragment.selectionSet), 0))
            pathIndexByName[fragment.name] = 0
            while let frame = stack.last {
                guard frame.next < frame.spreads.count else {
                    stack.removeLast()
                    pathIndexByName[frame.name] = nil
                    if !path.isEmpty {
                        path.removeLast()
                    }
                    continue
                }
                stack[stack.count - 1].next += 1
                let spread = frame.spreads[frame.next]
                if let cycleStart = pathIndexByName[spread.name] {
                    throw Self.cycleError(spread: spread, cyclePath: Array(path[cycleStart...]) + [spread])
                }
                guard !visited.contains(spread.name), let target = fragmentsByName[spread.name] else {
                    continue
                }
                visited.insert(spread.name)
                path.append(spread)
                pathIndexByName[spread.name] = path.count
                stack.append((spread.name, Self.spreads(in: target.selectionSet), 0))
            }
        }
    }

    private static func cycleError(spread: GraphQLFragmentSpread, cyclePath: [GraphQLFragmentSpread])
        -> GraphQLLanguageError
    {
        let via = cyclePath.dropLast().map { "\"\($0.name)\"" }.joined(separator: ", ")
        return GraphQLLanguageError(
            code: .fragmentCycle,
            message: "Cannot spread fragment \"\(spread.name)\" within itself" + (via.isEmpty ? "." : " via \(via)."),
            locations: cyclePath.compactMap(\.location)
        )
    }

    /// NoUndefinedVariables: every variable used by the operation, or by a fragment it reaches, is defined.
    package func checkVariablesAreDefined(in operation: GraphQLOperationDefinition) throws(GraphQLLanguageError) {
        let defined = Set(operation.variableDefinitions.map(\.name))
        var undefined: (name: String, location: GraphQLSourceLocation?)?
        let check = { (name: String, location: GraphQLSourceLocation?) in
            if undefined == nil && !defined.contains(name) {
                undefined = (name, location)
            }
        }
        Self.forEachVariable(in: operation.directives, check)
        Self.forEachVariable(in: operation.selectionSet, check)
        var reached = Set<String>()
        var pending = Self.spreads(in: operation.selectionSet).map(\.name)
        while undefined == nil, let name = pending.popLast() {
            guard !reached.contains(name), let fragment = fragmentsByName[name] else {
                continue
            }
            reached.insert(name)
            Self.forEachVariable(in: fragment.directives, check)
            Self.forEachVariable(in: fragment.selectionSet, check)
            pending.append(contentsOf: Self.spreads(in: fragment.selectionSet).map(\.name))
        }
        guard let (name, location) = undefined else {
            return
        }
        let message =
            operation.name.map { "Variable \"$\(name)\" is not defined by operation \"\($0)\"." }
            ?? "Variable \"$\(name)\" is not defined."
        throw GraphQLLanguageError(
            code: .undefinedVariable,
            message: message,
            locations: [location, operation.location].compactMap { $0 }
        )
    }

    /// The fragment spreads of a selection set, including those inside fields and inline fragments, in order.
    package static func spreads(in selectionSet: GraphQLSelectionSet) -> [GraphQLFragmentSpread] {
        var spreads: [GraphQLFragmentSpread] = []
        collectSpreads(in: selectionSet, into: &spreads)
        return spreads
    }

    private static func collectSpreads(
        in selectionSet: GraphQLSelectionSet,
        into spreads: inout [GraphQLFragmentSpread]
    ) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                if let selectionSet = field.selectionSet {
                    collectSpreads(in: selectionSet, into: &spreads)
                }
            case .fragmentSpread(let spread):
                spreads.append(spread)
            case .inlineFragment(let fragment):
                collectSpreads(in: fragment.selectionSet, into: &spreads)
            }
        }
    }

    /// Calls `body` for each variable used in the selection set's arguments and directives (not inside named
    /// fragments), with the location of the argument that uses it.
    private static func forEachVariable(
        in selectionSet: GraphQLSelectionSet,
        _ body: (String, GraphQLSourceLocation?) -> Void
    ) {
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                forEachVariable(in: field.arguments, body)
                forEachVariable(in: field.directives, body)
                if let selectionSet = field.selectionSet {
                    forEachVariable(in: selectionSet, body)
                }
            case .fragmentSpread(let spread):
                forEachVariable(in: spread.directives, body)
            case .inlineFragment(let fragment):
                forEachVariable(in: fragment.directives, body)
                forEachVariable(in: fragment.selectionSet, body)
            }
        }
    }

    private static func forEachVariable(
        in directives: [GraphQLDirective],
        _ body: (String, GraphQLSourceLocation?) -> Void
    ) {
        for directive in directives {
            forEachVariable(in: directive.arguments, body)
        }
    }

    private static func forEachVariable(
        in arguments: [GraphQLArgument],
        _ body: (String, GraphQLSourceLocation?) -> Void
    ) {
        for argument in arguments {
            argument.value.forEachVariable { body($0, argument.location) }
        }
    }
}
