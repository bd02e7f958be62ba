import CacheCore

extension GraphQLNormalizedStore {
    /// Reads an operation's data from the scope's records, shaped like the response (response keys, aliases
    /// restored, fields in selection order).
    ///
    /// Any selected field that is not cached (never written with these arguments, evicted, or behind a record
    /// that is gone) makes the whole read a miss naming the first missing path: no partial data.
    /// - Throws: `invalidVariables` when `@include`/`@skip` cannot be evaluated.
    public func read(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject = GraphQLJSONObject(),
        in scope: CacheScope
    ) throws(GraphQLCacheError) -> GraphQLReadResult<GraphQLJSONObject> {
        try withReader(operation, variables: variables, in: scope) { (reader, root, node) throws(GraphQLCacheError) in
            try reader.build(root, node: node)
        }
    }

    /// Reads an operation's data straight into the caller's `Decodable` type, from the records, without
    /// building JSON first. `Value` decodes what the response's `data` would be: its keys are response keys.
    ///
    /// Hit or miss is decided on the whole selection, not on the members `Value` happens to decode. Decoding
    /// runs while the scope's read lock is held (that is what makes it copy-free): `Value.init(from:)` must not
    /// write to or clear this store's scope, or it waits for itself.
    /// - Throws: `invalidVariables`, or `decodingFailed` when the cached data does not fit `Value`.
    public func read<Value: Decodable>(
        _ type: Value.Type,
        operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject = GraphQLJSONObject(),
        in scope: CacheScope,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws(GraphQLCacheError) -> GraphQLReadResult<Value> {
        try withReader(operation, variables: variables, in: scope) { (reader, root, node) throws(GraphQLCacheError) in
            guard try reader.check(root, node: node) else {
                return nil
            }
            let decoder = RecordDecoder(
                records: reader.records,
                context: reader.context,
                value: .record(root, node),
                userInfo: userInfo
            )
            do {
                return try Value(from: decoder)
            } catch {
                throw GraphQLCacheError.decodingFailed(error, as: type)
            }
        }
    }

    /// Runs `body` with a reader over the scope's records under its read lock, then turns the outcome into a
    /// hit or a miss and counts it.
    private func withReader<Value>(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        in scope: CacheScope,
        _ body: (inout RecordReader, NormalizedRecord, SelectionNode) throws(GraphQLCacheError) -> Value?
    ) throws(GraphQLCacheError) -> GraphQLReadResult<Value> {
        let definition = operation.operation
        let context = SelectionContext(
            fragments: operation.fragments,
            variables: definition.resolvedVariables(variables),
            configuration: cacheConfiguration
        )
        let rootKey = Self.rootKey(of: definition.kind)
        let rootTypename = cacheConfiguration.rootTypename(of: definition.kind)
        let node = SelectionNode(selectionSets: [definition.selectionSet])
        let table = table(for: scope)
        let result: GraphQLReadResult<Value>
        if let table {
            result = try table.read { (state) throws(GraphQLCacheError) in
                var reader = RecordReader(records: state.records, context: context, tick: table.nextTick())
                return try Self.walk(&reader, root: reader.root(rootKey, typename: rootTypename), node: node, body)
            }
        } else {
            var reader = RecordReader(records: [:], context: context, tick: 0)
            result = try Self.walk(&reader, root: reader.root(rootKey, typename: rootTypename), node: node, body)
        }
        let isHit = if case .hit = result { true } else { false }
        table?.countRead(hit: isHit)
        if let observer {
            let key = definition.name ?? "<anonymous>"
            observer.cacheDidEmit(isHit ? .hit(scope: scope, key: key) : .miss(scope: scope, key: key))
        }
        return result
    }

    private static func walk<Value>(
        _ reader: inout RecordReader,
        root: NormalizedRecord,
        node: SelectionNode,
        _ body: (inout RecordReader, NormalizedRecord, SelectionNode) throws(GraphQLCacheError) -> Value?
    ) throws(GraphQLCacheError) -> GraphQLReadResult<Value> {
        guard let data = try body(&reader, root, node) else {
            let miss = reader.miss ?? (path: "", reason: .missingField)
            return .miss(GraphQLCacheMiss(path: miss.path, reason: miss.reason, touchedRecordKeys: reader.touched))
        }
        return .hit(
            GraphQLCacheHit(
                data: data,
                touchedRecordKeys: reader.touched,
                oldestWrite: reader.oldestWrite,
                oldestWriteByTypename: reader.oldestByTypename
            )
        )
    }
}
