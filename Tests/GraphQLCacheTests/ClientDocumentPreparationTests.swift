import CacheCore
import Testing

@testable import GraphQLCache

@Suite("GraphQL client: document preparation (typenames, variables, keys)")
struct ClientDocumentPreparationTests {
    private func prepared(_ document: String, operationName: String? = nil) throws -> PreparedDocument {
        try GraphQLDocumentCache().prepared(document, operationName: operationName, addingTypenames: true)
    }

    @Test("__typename is added first to every field's selection set, once; not to the root or fragments")
    func typenamesAdded() throws {
        let document = try prepared(
            """
            query Q($id: ID!) {
              account(id: $id) { id transactions { id } ... on Account { name } }
              me { __typename id }
              node(id: $id) { ...N }
            }
            fragment N on Node { id ... on Account { balance } }
            """
        )
        let operation =
            "query Q($id: ID!) { account(id: $id) { __typename id transactions { __typename id } "
            + "... on Account { name } } me { __typename id } node(id: $id) { __typename ...N } }"
        #expect(document.text == operation + "\nfragment N on Node { id ... on Account { balance } }")
        #expect(document.keyName == "Q")
        #expect(document.kind == .query)
    }

    @Test("an aliased or conditional __typename does not count as the plain one")
    func aliasedTypename() throws {
        let document = try prepared("{ me { kind: __typename id } }")
        let me = try #require(document.operation.operation.selectionSet.selections.first)
        guard case .field(let field) = me, let selections = field.selectionSet?.selections else {
            Issue.record("expected a field with a selection set")
            return
        }
        #expect(selections.count == 3)
        #expect(document.keyName == "<anonymous>")
    }

    @Test("documents are prepared once per text and operation name; failures are invalidOperation")
    func caching() throws {
        let cache = GraphQLDocumentCache()
        let first = try cache.prepared("query A { me { id } }", operationName: nil, addingTypenames: true)
        let again = try cache.prepared("query A { me { id } }", operationName: nil, addingTypenames: true)
        let plain = try cache.prepared("query A { me { id } }", operationName: nil, addingTypenames: false)
        #expect(first === again)
        #expect(first !== plain)
        #expect(cache.count == 2)
        let error = #expect(throws: GraphQLCacheError.self) {
            try cache.prepared("query A { me { id } } query B { me { id } }", operationName: nil, addingTypenames: true)
        }
        #expect(error?.code == .invalidOperation)
        #expect((error?.underlying as? GraphQLLanguageError)?.code == .ambiguousOperation)
        #expect(cache.count == 2)
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test("variables: required ones must be present and not null; built-in scalars must have their shape")
    func variableShapes() throws {
        let definition = try prepared(
            """
            query V($id: ID!, $n: Int = 3, $f: Float, $s: String, $b: Boolean, $l: [Int!]!, $e: Kind, $o: Input) {
              me { id }
            }
            """
        ).operation.operation
        let base: GraphQLJSONObject = ["id": "x", "l": [1]]
        try definition.validateVariables(base)
        var valid = base
        valid["n"] = nil
        valid["f"] = 2
        valid["s"] = "text"
        valid["b"] = false
        valid["l"] = 7
        valid["e"] = "RED"
        valid["o"] = ["any": [1, "shape"]]
        try definition.validateVariables(valid)

        let invalid: [GraphQLJSONObject] = [
            ["l": [1]],
            ["id": nil, "l": [1]],
            ["id": 1.5, "l": [1]],
            ["id": "x", "l": nil],
            ["id": "x", "l": [1, nil]],
            ["id": "x", "l": ["1"]],
            ["id": "x", "l": [1], "n": 2_147_483_648],
            ["id": "x", "l": [1], "f": "1.5"],
            ["id": "x", "l": [1], "b": 1],
            ["id": "x", "l": [1], "s": ["no"]],
        ]
        for variables in invalid {
            #expect(throws: GraphQLCacheError.self, "\(variables)") { try definition.validateVariables(variables) }
        }
    }

    @Test("query keys fill in default values, so an omitted default and an explicit one are the same query")
    func keysWithDefaults() throws {
        let document = try prepared(
            "query T($a: ID!, $first: Int = 20) { transactions(accountId: $a, first: $first) { id } }")
        let omitted = try PreparedRequest(document, variables: ["a": "101"], kind: .query)
        let explicit = try PreparedRequest(document, variables: ["first": 20, "a": "101"], kind: .query)
        #expect(omitted.queryKey == explicit.queryKey)
        #expect(omitted.queryKey.text == #"T({"a":"101","first":20})"#)
        #expect(throws: GraphQLCacheError.self) {
            try PreparedRequest(document, variables: ["a": "101"], kind: .mutation)
        }
    }
}
