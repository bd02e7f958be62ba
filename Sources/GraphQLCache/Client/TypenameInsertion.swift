import GraphQLLanguage

extension GraphQLPreparedOperation {
    /// The operation with `__typename` selected in the selection set of every field that has one, as Apollo
    /// sends it: key providers and type conditions need every object's type, and the caller's `Decodable`
    /// types ignore the extra member. Fragments get theirs from the field they are spread in; the root's type
    /// is known.
    func addingTypenames() -> GraphQLPreparedOperation {
        let definition = operation
        let root = GraphQLOperationDefinition(
            kind: definition.kind,
            name: definition.name,
            variableDefinitions: definition.variableDefinitions,
            directives: definition.directives,
            selectionSet: definition.selectionSet.addingTypenames(here: false),
            location: definition.location
        )
        var fragments: [String: GraphQLFragmentDefinition] = [:]
        for (name, fragment) in self.fragments {
            fragments[name] = GraphQLFragmentDefinition(
                name: fragment.name,
                typeCondition: fragment.typeCondition,
                directives: fragment.directives,
                selectionSet: fragment.selectionSet.addingTypenames(here: false),
                location: fragment.location
            )
        }
        return GraphQLPreparedOperation(operation: root, fragments: fragments)
    }
}

extension GraphQLSelectionSet {
    /// This selection set with `__typename` first when `here` (unless it already selects it plainly), and the
    /// selection sets of its fields (through inline fragments) treated the same way.
    func addingTypenames(here: Bool) -> GraphQLSelectionSet {
        var selections: [GraphQLSelection] = []
        selections.reserveCapacity(self.selections.count + 1)
        var hasTypename = false
        for selection in self.selections {
            switch selection {
            case .field(let field):
                if field.name == "__typename", field.alias == nil, field.directives.isEmpty {
                    hasTypename = true
                }
                guard let nested = field.selectionSet else {
                    selections.append(selection)
                    continue
                }
                let updated = GraphQLField(
                    alias: field.alias,
                    name: field.name,
                    arguments: field.arguments,
                    directives: field.directives,
                    selectionSet: nested.addingTypenames(here: true),
                    location: field.location
                )
                selections.append(.field(updated))
            case .inlineFragment(let fragment):
                let updated = GraphQLInlineFragment(
                    typeCondition: fragment.typeCondition,
                    directives: fragment.directives,
                    selectionSet: fragment.selectionSet.addingTypenames(here: false),
                    location: fragment.location
                )
                selections.append(.inlineFragment(updated))
            case .fragmentSpread:
                selections.append(selection)
            }
        }
        if here, !hasTypename {
            selections.insert(.field(GraphQLField(name: "__typename")), at: 0)
        }
        return GraphQLSelectionSet(selections: selections)
    }
}
