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
        try withReader(
            operation, variables: variables, in: scope, freshness: freshness, planAnchor: planAnchor,
            reportsTouched: reportsTouched
        ) {
            (reader, root, node) throws(GraphQLCacheError) in
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
        try read(type, operation: operation, variables: variables, in: scope, userInfo: userInfo, freshness: nil)
    }

    /// ``read(_:operation:variables:in:userInfo:)`` that asks `freshness` whether a hit is stale, to count and
    /// report it as such; `planAnchor` and `reportsTouched` as in
    /// ``read(_:variables:in:freshness:planAnchor:reportsTouched:)``.
    func read<Value: Decodable>(
        _ type: Value.Type,
        operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        in scope: CacheScope,
        userInfo: [CodingUserInfoKey: any Sendable],
        freshness: ReadFreshness?,
        planAnchor: (any AnyObject & Sendable)? = nil,
        reportsTouched: Bool = true
    ) throws(GraphQLCacheError) -> GraphQLReadResult<Value> {
        try withReader(
            operation, variables: variables, in: scope, freshness: freshness, planAnchor: planAnchor,
            reportsTouched: reportsTouched
        ) {
            (reader, root, node) throws(GraphQLCacheError) in
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
    /// hit or a miss and counts it (a hit `freshness` finds stale as a stale hit).
    private func withReader<Value>(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        in scope: CacheScope,
        freshness: ReadFreshness?,
        planAnchor: (any AnyObject & Sendable)?,
        reportsTouched: Bool,
        _ body: (inout RecordReader, NormalizedRecord, SelectionNode) throws(GraphQLCacheError) -> Value?
    ) throws(GraphQLCacheError) -> GraphQLReadResult<Value> {
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
        let result: GraphQLReadResult<Value>
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
        case .hit(let hit):
            staleness = freshness?.staleness(of: hit)
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
                touchedRecordKeys: reader.tracksTouched ? reader.touched : [],
                oldestWrite: reader.oldestWrite,
                oldestWriteByTypename: reader.oldestByTypename,
                oldestWriteByCoordinate: reader.oldestByCoordinate,
                upstreamExpiry: reader.upstreamExpiry
            )
        )
    }
}

/// How a reader judges a hit's freshness: the store keeps write times, its caller knows the time-to-live rules.
struct ReadFreshness {
    /// Typename → field names whose write times are gathered per schema coordinate (fields with a TTL of their
    /// own), so they do not count for their type's TTL.
    var separatedFields: [String: Set<String>]
    /// Typenames with a TTL of their own: the upstream's hints on their fields give way to it.
    var ruledTypenames: Set<String> = []
    /// How long past its time-to-live a hit is, from its oldest write times (overall, per typename, per
    /// coordinate) and the earliest end of an upstream hint; `nil` when it is fresh.
    var judge:
        (
            _ oldestWrite: CacheInstant?,
            _ byTypename: [String: CacheInstant],
            _ byCoordinate: [String: CacheInstant],
            _ upstreamExpiry: CacheInstant?
        ) -> Duration?

    /// How long past its time-to-live a hit is; `nil` when it is fresh.
    func staleness(
        _ oldestWrite: CacheInstant?,
        _ byTypename: [String: CacheInstant],
        _ byCoordinate: [String: CacheInstant],
        upstreamExpiry: CacheInstant? = nil
    ) -> Duration? {
        judge(oldestWrite, byTypename, byCoordinate, upstreamExpiry)
    }

    /// How long past its time-to-live `hit` is; `nil` when it is fresh.
    func staleness<Value>(of hit: GraphQLCacheHit<Value>) -> Duration? {
        judge(hit.oldestWrite, hit.oldestWriteByTypename, hit.oldestWriteByCoordinate, hit.upstreamExpiry)
    }
}

/// How a read is counted.
enum ReadOutcome {
    case hit
    case staleHit
    case miss
}
