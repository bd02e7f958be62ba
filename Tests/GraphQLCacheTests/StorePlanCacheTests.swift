import CacheCore
import Testing

@testable import GraphQLCache

/// What the client passes as a plan's anchor is its prepared document; any object stands in for one here.
private final class DocumentAnchor: Sendable {}

@Suite("Normalized store: selection plans kept between reads")
struct StorePlanCacheTests {
    private let details = """
        query Details($id: ID!, $withName: Boolean!, $withoutType: Boolean = false) {
          account(id: $id) { id name @include(if: $withName) type @skip(if: $withoutType) balance }
        }
        """
    private let detailsData = """
        {"account": {"__typename": "Account", "id": "101", "name": "Main", "type": "CHECKING", "balance": 10}}
        """

    @Test("a cached read with another value of an @include or @skip variable gets its own plan and shape")
    func directiveVariablesChangeThePlan() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(details)
        let anchor = DocumentAnchor()
        try store.write(operation, variables: ["id": "101", "withName": true], json: detailsData)
        for _ in 0..<2 {  // the second round reads through the plans the first one kept
            let named = try store.planHit(operation, ["id": "101", "withName": true], anchor: anchor)
            #expect(named["account"]?.objectValue?.keys == ["id", "name", "type", "balance"])
            let unnamed = try store.planHit(operation, ["id": "101", "withName": false], anchor: anchor)
            #expect(unnamed["account"]?.objectValue?.keys == ["id", "type", "balance"])
            let untyped = try store.planHit(
                operation, ["id": "101", "withName": false, "withoutType": true], anchor: anchor)
            #expect(untyped["account"]?.objectValue?.keys == ["id", "balance"])
        }
        #expect(store.selectionPlans.count == 3)
    }

    @Test("a variable's default and the same value given explicitly share one plan")
    func defaultsResolveBeforeKeying() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(details)
        let anchor = DocumentAnchor()
        try store.write(operation, variables: ["id": "101", "withName": true], json: detailsData)
        _ = try store.planHit(operation, ["id": "101", "withName": true], anchor: anchor)
        _ = try store.planHit(operation, ["withoutType": false, "withName": true, "id": "101"], anchor: anchor)
        #expect(store.selectionPlans.count == 1)
    }

    @Test("one plan serves every value of a variable argument, and each read reaches its own value's record")
    func argumentVariablesShareThePlan() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(BankOperations.balance)
        let anchor = DocumentAnchor()
        for id in 1...3 {
            try store.writeAccount(id)
        }
        for _ in 0..<2 {
            for id in 1...3 {
                let data = try store.planHit(operation, ["id": .string("\(id)")], anchor: anchor)
                #expect(data["account"]?.objectValue?["balance"] == .int(Int64(id)))
            }
        }
        #expect(store.selectionPlans.count == 1)
        #expect(throws: StoreTestFailure.self) {
            try store.planHit(operation, ["id": "4"], anchor: anchor)
        }
    }

    @Test("two response keys of one field with variable arguments write and read apart or together by value")
    func variableArgumentsOfOneFieldTwice() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(
            """
            query Two($a: ID!, $b: ID!) { first: account(id: $a) { __typename id balance } second: account(id: $b) { __typename id balance } }
            """
        )
        let anchor = DocumentAnchor()
        try store.write(
            operation, variables: ["a": "1", "b": "1"],
            json:
                #"{"first": {"__typename": "Account", "id": "1", "balance": 5}, "second": {"__typename": "Account", "id": "1", "balance": 5}}"#
        )
        try store.write(
            operation, variables: ["a": "1", "b": "2"],
            json:
                #"{"first": {"__typename": "Account", "id": "1", "balance": 6}, "second": {"__typename": "Account", "id": "2", "balance": 7}}"#
        )
        let same = try store.planHit(operation, ["a": "1", "b": "1"], anchor: anchor)
        #expect(same["first"]?.objectValue?["balance"] == 6)
        #expect(same["second"]?.objectValue?["balance"] == 6)
        let apart = try store.planHit(operation, ["a": "2", "b": "1"], anchor: anchor)
        #expect(apart["first"]?.objectValue?["balance"] == 7)
        #expect(apart["second"]?.objectValue?["balance"] == 6)
        #expect(store.selectionPlans.count == 1)
    }

    @Test("a variable argument's key follows the variables it names inside lists and objects, not the others")
    func nestedArgumentVariables() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(
            "query S($ids: [ID!], $note: String) { search(filter: {ids: $ids}) { __typename id note(text: $note) } }"
        )
        let anchor = DocumentAnchor()
        for id in ["1", "2"] {
            try store.write(
                operation, variables: ["ids": [.string(id)], "note": "n"],
                json: #"{"search": [{"__typename": "Account", "id": "\#(id)", "note": "n\#(id)"}]}"#)
        }
        for _ in 0..<2 {
            for id in ["1", "2"] {
                let data = try store.planHit(operation, ["ids": [.string(id)], "note": "n"], anchor: anchor)
                #expect(data["search"]?.arrayValue?.first?.objectValue?["id"] == .string(id))
            }
        }
        // Another value of the variable only `note` names: `search` keeps its key, `note` is not cached for it.
        let other = try store.read(
            operation, variables: ["ids": ["2"], "note": "other"], in: alice, freshness: nil, planAnchor: anchor)
        #expect(other.missValue?.path == "search.0.note")
        #expect(throws: StoreTestFailure.self) {
            try store.planHit(operation, ["ids": ["3"], "note": "n"], anchor: anchor)
        }
    }

    @Test("a kept plan decides fragments' type conditions per object, for every typename of a list")
    func typeConditionsPerTypename() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(
            """
            { search(text: "m") { __typename ... on Account { id balance } ... on Payee { id name } } }
            """
        )
        try store.write(
            operation,
            json: """
                {"search": [{"__typename": "Account", "id": "101", "balance": 5},
                  {"__typename": "Payee", "id": "p1", "name": "Mia"},
                  {"__typename": "Account", "id": "102", "balance": 7}]}
                """
        )
        let anchor = DocumentAnchor()
        for _ in 0..<2 {
            let results = try #require(try store.planHit(operation, [:], anchor: anchor)["search"]?.arrayValue)
            #expect(
                results.map { $0.objectValue?.keys ?? [] } == [
                    ["__typename", "id", "balance"], ["__typename", "id", "name"], ["__typename", "id", "balance"],
                ])
        }
    }

    @Test("the same document and condition values share one plan; another document or condition value does not")
    func planIdentity() throws {
        let cache = SelectionPlanCache(maximumPlans: 8)
        let operation = try prepare(details)
        let document = DocumentAnchor()
        let plan = cache.plan(anchor: document, variables: ["id": "1", "withName": true], operation: operation)
        #expect(cache.plan(anchor: document, variables: ["id": "2", "withName": true], operation: operation) === plan)
        #expect(cache.plan(anchor: document, variables: ["id": "1", "withName": false], operation: operation) !== plan)
        #expect(
            cache.plan(anchor: DocumentAnchor(), variables: ["id": "1", "withName": true], operation: operation)
                !== plan)
        #expect(cache.count == 3)
    }

    @Test("the condition variables are those @include and @skip test, in the operation and its fragments")
    func conditionVariables() throws {
        let operation = try prepare(
            """
            query Q($id: ID!, $a: Boolean!, $b: Boolean!, $c: Boolean!) {
              account(id: $id) @include(if: $a) { id ...More @skip(if: $b) }
            }
            fragment More on Account { balance @include(if: $c) ... @include(if: true) { name } }
            """
        )
        #expect(SelectionPlanCache.conditionVariables(of: operation) == ["a", "b", "c"])
        #expect(SelectionPlanCache.conditionVariables(of: try prepare(BankOperations.balance)).isEmpty)
    }

    @Test("past its bound the plan cache drops its oldest plans first")
    func boundedOldestFirst() throws {
        let cache = SelectionPlanCache(maximumPlans: 4)
        let operation = try prepare(details)
        let document = DocumentAnchor()
        let plans = (0..<10).map { index in
            cache.plan(anchor: document, variables: ["withName": .int(Int64(index))], operation: operation)
        }
        #expect(cache.count == 4)
        #expect(cache.plan(anchor: document, variables: ["withName": 9], operation: operation) === plans[9])
        #expect(cache.plan(anchor: document, variables: ["withName": 6], operation: operation) === plans[6])
        #expect(cache.plan(anchor: document, variables: ["withName": 0], operation: operation) !== plans[0])
        #expect(cache.count == 4)
    }

    @Test("variables never equal to themselves (NaN) cannot grow the plan cache past its bound")
    func notANumberStaysBounded() throws {
        let cache = SelectionPlanCache(maximumPlans: 4)
        let operation = try prepare(details)
        let document = DocumentAnchor()
        for _ in 0..<20 {
            _ = cache.plan(anchor: document, variables: ["withName": .double(.nan)], operation: operation)
            #expect(cache.count <= 4)
        }
    }

    @Test("concurrent reads through one kept plan each get the shape of their own variables")
    func concurrentReadsShareAPlan() async throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(details)
        let anchor = DocumentAnchor()
        try store.write(operation, variables: ["id": "101", "withName": true], json: detailsData)
        let wrongShapes = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<200 {
                        let withName = (task + round) % 2 == 0
                        let data = try? store.planHit(
                            operation, ["id": "101", "withName": .bool(withName)], anchor: anchor)
                        let expected = withName ? ["id", "name", "type", "balance"] : ["id", "type", "balance"]
                        if data?["account"]?.objectValue?.keys != expected {
                            wrong += 1
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrongShapes == 0)
        #expect(store.selectionPlans.count == 2)
    }
}

extension GraphQLNormalizedStore {
    /// The data of a read through the plan cache (as the client reads) that must hit.
    fileprivate func planHit(
        _ operation: GraphQLPreparedOperation,
        _ variables: GraphQLJSONObject,
        anchor: some AnyObject & Sendable
    ) throws -> GraphQLJSONObject {
        switch try read(operation, variables: variables, in: alice, freshness: nil, planAnchor: anchor) {
        case .hit(let hit):
            return hit.data
        case .miss(let miss):
            throw StoreTestFailure("expected a hit, missed at '\(miss.path)' (\(miss.reason))")
        }
    }
}
