import CacheCore
import GraphQLLanguage

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
        try read(operation, variables: variables, in: scope, freshness: nil)
    }

    /// ``read(_:variables:in:)`` that asks `freshness` whether a hit is stale, to count and report it as such.
    /// With a `planAnchor` (the prepared document `operation` comes from, alive as long as `operation` means the
    /// same), the selection plan is kept for the next read of the same document and variables. With
    /// `reportsTouched` false, `touchedRecordKeys` stays empty (for callers that never look at it).
    func read(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        in scope: CacheScope,
        freshness: ReadFreshness?,
        planAnchor: (any AnyObject & Sendable)? = nil,
        reportsTouched: Bool = true
    ) throws(GraphQLCacheError) -> GraphQLReadResult<GraphQLJSONObject> {
        var data: GraphQLJSONObject?
        let read = try read(
            operation, variables: variables, in: scope, freshness: freshness, planAnchor: planAnchor,
            reportsTouched: reportsTouched, into: &data)
        return read.result(data)
    }

    /// ``read(_:variables:in:freshness:planAnchor:reportsTouched:)`` giving the data through `data` and what the
    /// read found as a type that is not generic (so a caller's hit path looks up no generic metadata for it).
    func read(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        in scope: CacheScope,
        freshness: ReadFreshness?,
        planAnchor: (any AnyObject & Sendable)?,
        reportsTouched: Bool,
        into data: inout GraphQLJSONObject?
    ) throws(GraphQLCacheError) -> StoreRead {
        try withReader(
            operation, variables: variables, in: scope, freshness: freshness, planAnchor: planAnchor,
            reportsTouched: reportsTouched
        ) {
            (reader, root, node) throws(GraphQLCacheError) in
            data = try reader.build(root, node: node)
            return data != nil
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
        var value: Value?
        let read = try read(
            type, operation: operation, variables: variables, in: scope, userInfo: userInfo, freshness: nil,
            planAnchor: nil, reportsTouched: true, into: &value)
        return read.result(value)
    }

    /// ``read(_:operation:variables:in:userInfo:)`` that asks `freshness` whether a hit is stale, to count and
    /// report it as such (`planAnchor` and `reportsTouched` as in
    /// ``read(_:variables:in:freshness:planAnchor:reportsTouched:)``), giving the value through `value` and what the
    /// read found as a type that is not generic (so a caller's hit path looks up no generic metadata for it).
    func read<Value: Decodable>(
        _ type: Value.Type,
        operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        in scope: CacheScope,
        userInfo: [CodingUserInfoKey: any Sendable],
        freshness: ReadFreshness?,
        planAnchor: (any AnyObject & Sendable)?,
        reportsTouched: Bool,
        into value: inout Value?
    ) throws(GraphQLCacheError) -> StoreRead {
        try withReader(
            operation, variables: variables, in: scope, freshness: freshness, planAnchor: planAnchor,
            reportsTouched: reportsTouched
        ) {
            (reader, root, node) throws(GraphQLCacheError) in
            value = try Self.decode(type, &reader, root: root, node: node, userInfo: userInfo)
            return value != nil
        }
    }

    /// Decodes `Value` from the records while checking the selection, each record visited once; `nil` on a miss.
    ///
    /// When the combined pass finds a field missing, or decoding fails, the read starts over as two passes (check
    /// the whole selection in its order, then decode): a miss is then reported at the same path as ever, a decoding
    /// error only when the selection is whole, and no value decoded from an incomplete selection is returned.
    private static func decode<Value: Decodable>(
        _ type: Value.Type,
        _ reader: inout RecordReader,
        root: NormalizedRecord,
        node: SelectionNode,
        userInfo: [CodingUserInfoKey: any Sendable]
    ) throws(GraphQLCacheError) -> Value? {
        let records = reader.records
        let context = reader.context
        // The reader comes fresh from `withReader` (nothing gathered yet): the decoder takes it over rather than
        // checking a copy (a copy is a retain and a release of each of its members), and the checks below start over
        // from it restarted.
        let decoder = RecordDecoder(
            records: records,
            context: context,
            value: .record(root, node),
            userInfo: userInfo,
            checking: consume reader
        )
        defer { decoder.releaseFrames() }
        let failure: (any Error)?
        do {
            let value = try Value(from: decoder)
            if (try? decoder.finishChecks(root: root, node: node)) == true, let checked = decoder.takeReader() {
                reader = checked
                return value
            }
            failure = nil
        } catch {
            failure = decoder.missed ? nil : error
        }
        // Only the return above takes the reader from the decoder.
        reader = decoder.takeReader()!.restarted()
        guard try reader.check(root, node: node) else {
            return nil
        }
        if let failure {
            throw GraphQLCacheError.decodingFailed(failure, as: type)
        }
        // The combined pass missed what the full check found: decode once more, without checking.
        let plain = RecordDecoder(
            records: reader.records, context: reader.context, value: .record(root, node), userInfo: userInfo)
        do {
            return try Value(from: plain)
        } catch {
            throw GraphQLCacheError.decodingFailed(error, as: type)
        }
    }

    /// Runs `body` with a reader over the scope's records under its read lock (`body` says whether it found the
    /// whole selection), then turns the outcome into a hit or a miss and counts it (a hit `freshness` finds stale as
    /// a stale hit).
    private func withReader(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        in scope: CacheScope,
        freshness: ReadFreshness?,
        planAnchor: (any AnyObject & Sendable)?,
        reportsTouched: Bool,
        _ body: (inout RecordReader, NormalizedRecord, SelectionNode) throws(GraphQLCacheError) -> Bool
    ) throws(GraphQLCacheError) -> StoreRead {
        let definition = operation.operation
        let resolvedVariables = definition.resolvedVariables(variables)
        let context = SelectionContext(
            fragments: operation.fragments,
            variables: resolvedVariables,
            configuration: cacheConfiguration
        )
        let rootKey = Self.rootKey(of: definition.kind)
        let rootTypename = cacheConfiguration.rootTypename(of: definition.kind)
        let node =
            if let planAnchor {
                selectionPlans.plan(anchor: planAnchor, variables: resolvedVariables, operation: operation)
            } else {
                SelectionNode(selectionSets: [definition.selectionSet])
            }
        let table = table(for: scope)
        let separated = freshness?.separatedFields ?? [:]
        let ruled = freshness?.ruledTypenames ?? []
        let result: StoreRead
        if let table {
            result = try table.read { (state) throws(GraphQLCacheError) in
                var reader = RecordReader(
                    records: state.records,
                    context: context,
                    tick: table.nextTick(),
                    separatedFields: separated,
                    ruledTypenames: ruled,
                    tracksTouched: reportsTouched
                )
                return try Self.walk(&reader, root: reader.root(rootKey, typename: rootTypename), node: node, body)
            }
        } else {
            var reader = RecordReader(
                records: RecordMap(), context: context, tick: 0, separatedFields: separated, ruledTypenames: ruled,
                tracksTouched: reportsTouched)
            result = try Self.walk(&reader, root: reader.root(rootKey, typename: rootTypename), node: node, body)
        }
        let outcome: ReadOutcome
        var staleness: Duration?
        switch result {
        case .hit(let facts):
            staleness = freshness?.staleness(of: facts)
            outcome = staleness == nil ? .hit : .staleHit
        case .miss:
            outcome = .miss
        }
        // A scope read before anything was written gets its partition here, like `CacheStore.lookup`, so that
        // its first misses are counted.
        (table ?? createTable(for: scope)).countRead(outcome)
        if let observer {
            let key = definition.name ?? "<anonymous>"
            switch outcome {
            case .hit: observer.cacheDidEmit(.hit(scope: scope, key: key))
            case .staleHit: observer.cacheDidEmit(.stale(scope: scope, key: key, staleness: staleness ?? .zero))
            case .miss: observer.cacheDidEmit(.miss(scope: scope, key: key))
            }
        }
        return result
    }

    private static func walk(
        _ reader: inout RecordReader,
        root: NormalizedRecord,
        node: SelectionNode,
        _ body: (inout RecordReader, NormalizedRecord, SelectionNode) throws(GraphQLCacheError) -> Bool
    ) throws(GraphQLCacheError) -> StoreRead {
        guard try body(&reader, root, node) else {
            let miss = reader.miss ?? (path: "", reason: .missingField)
            return .miss(GraphQLCacheMiss(path: miss.path, reason: miss.reason, touchedRecordKeys: reader.touched))
        }
        return .hit(
            ReadFacts(
                touchedRecordKeys: reader.tracksTouched ? reader.touched : [],
                oldestWrite: reader.oldestWrite,
                oldestWriteByTypename: reader.takeOldestByTypename(),
                oldestWriteByCoordinate: reader.oldestByCoordinate,
                upstreamExpiry: reader.upstreamExpiry
            )
        )
    }
}
