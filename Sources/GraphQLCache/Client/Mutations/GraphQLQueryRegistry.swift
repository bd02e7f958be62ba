import GraphQLLanguage
import Synchronization

/// Query names → operations, so refetch strategies can run queries they know only by name.
///
/// Register typed queries by type (their operation name, document and ``CacheableQuery`` timeout are taken
/// from it) or documents by text. Shared by the clients of every session: it holds no session state.
public final class GraphQLQueryRegistry: Sendable {
    /// One registered query.
    struct Entry: Sendable {
        /// Prepares the document with a client's settings (typed operations use the client's per-type cache).
        let prepare: @Sendable (GraphQLClient) throws(GraphQLCacheError) -> PreparedDocument
        /// The query type's own timeout.
        let timeout: QueryCacheTimeout
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Registers a typed query under `queryType` (default: its operation name).
    public func register<Query: GraphQLQuery>(_ type: Query.Type, as queryType: String = Query.operationName) {
        let timeout = (type as? any CacheableQuery.Type)?.cacheTimeout ?? .useDefault
        let entry = Entry(
            prepare: { client throws(GraphQLCacheError) in
                try client.documents.prepared(
                    Query.self, addingTypenames: client.configuration.addsTypenameToSelections)
            },
            timeout: timeout
        )
        entries.withLock { $0[queryType] = entry }
    }

    /// Registers a query document under `queryType`; `operationName` picks the operation when the document
    /// has several.
    public func register(
        _ queryType: String,
        document: String,
        operationName: String? = nil,
        cacheTimeout: QueryCacheTimeout = .useDefault
    ) {
        let entry = Entry(
            prepare: { client throws(GraphQLCacheError) in
                try client.documents.prepared(
                    document,
                    operationName: operationName,
                    addingTypenames: client.configuration.addsTypenameToSelections
                )
            },
            timeout: cacheTimeout
        )
        entries.withLock { $0[queryType] = entry }
    }

    /// The registered names, sorted.
    public var queryTypes: [String] {
        entries.withLock { Array($0.keys) }.sorted()
    }

    func entry(for queryType: String) -> Entry? {
        entries.withLock { $0[queryType] }
    }
}

extension GraphQLClient {
    /// Runs one descriptor's query under `policy` (for `returnCacheDataAndFetch`, until the network's answer);
    /// `fill` adds variables the descriptor lacks but the operation declares.
    func refetch(
        _ descriptor: QueryDescriptor,
        registry: GraphQLQueryRegistry,
        policy: GraphQLCachePolicy,
        fill: GraphQLJSONObject = GraphQLJSONObject()
    ) async -> RefetchOutcome {
        var outcome = RefetchOutcome(descriptor: descriptor)
        guard let entry = registry.entry(for: descriptor.queryType) else {
            outcome.error = .invalidOperation("No query is registered as \"\(descriptor.queryType.prefix(80))\".")
            return outcome
        }
        let request: PreparedRequest
        do {
            let document = try entry.prepare(self)
            var variables = GraphQLJSONObject()
            for definition in document.operation.operation.variableDefinitions {
                if let value = descriptor.variables[definition.name] ?? fill[definition.name] {
                    variables[definition.name] = value
                }
            }
            request = try PreparedRequest(document, variables: variables, kind: .query, requestedTimeout: entry.timeout)
        } catch {
            outcome.error = error
            return outcome
        }
        var last: Result<GraphQLResult<GraphQLJSONObject>, GraphQLCacheError>?
        for await result in stream(request, policy: policy, reader: jsonReader) {
            last = result
            if case .failure = result {
                break
            }
        }
        switch last {
        case .success(let result)?:
            outcome.source = result.source
            outcome.wasStored = result.wasStored
        case .failure(let error)?:
            outcome.error = error
        case nil:
            outcome.error = .cancelledError()
        }
        return outcome
    }

    /// Runs descriptors in parallel, network-only; outcomes in the descriptors' order.
    func refetchInParallel(
        _ descriptors: [QueryDescriptor],
        registry: GraphQLQueryRegistry,
        fill: GraphQLJSONObject = GraphQLJSONObject()
    ) async -> RefetchReport {
        let outcomes = await withTaskGroup(of: (Int, RefetchOutcome).self) { group in
            for (index, descriptor) in descriptors.enumerated() {
                group.addTask {
                    let outcome = await self.refetch(
                        descriptor,
                        registry: registry,
                        policy: .fetchIgnoringCacheData,
                        fill: fill
                    )
                    return (index, outcome)
                }
            }
            var collected: [(Int, RefetchOutcome)] = []
            for await outcome in group {
                collected.append(outcome)
            }
            return collected.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return RefetchReport(outcomes: outcomes)
    }
}
