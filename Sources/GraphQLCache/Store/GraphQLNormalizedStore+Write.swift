import CacheCore
import GraphQLLanguage

extension GraphQLNormalizedStore {
    /// Merges a response's `data` into the scope's records.
    ///
    /// The selection is walked with the request's variables (operation defaults applied): aliases are mapped
    /// back to field names, arguments become part of the storage key, `@include`/`@skip` are honoured and
    /// fragments apply when their type condition matches the object's `__typename` (or one of
    /// ``GraphQLCacheConfiguration/possibleTypes``). Objects go to the record their key provider names, or to
    /// their path below the parent record. The whole response is validated before anything is merged.
    ///
    /// - Parameters:
    ///   - operation: the operation the response answers (a query's results go under `QUERY_ROOT`, a
    ///     mutation's under `MUTATION_ROOT`; the objects inside are shared records either way, which is how a
    ///     mutation's result updates every query that reads the same object).
    ///   - variables: the request's variables.
    ///   - data: the response's `data` member.
    ///   - scope: the session's scope (or `.shared`) the records go into.
    ///   - generation: the scope's generation taken before the upstream call; after a clear nothing is stored.
    /// - Returns: the changes, or why nothing was stored.
    /// - Throws: `responseMismatch` (a selected field is missing, an object field holds a scalar),
    ///   `missingTypename`, `invalidCacheKey` or `invalidVariables`; the store is unchanged.
    @discardableResult
    public func write(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject = GraphQLJSONObject(),
        data: GraphQLJSONObject,
        in scope: CacheScope,
        ifGeneration generation: CacheGeneration? = nil
    ) throws(GraphQLCacheError) -> GraphQLWriteOutcome {
        try write(operation, variables: variables, data: data, in: scope, ifGeneration: generation, upstream: .none)
    }

    /// ``write(_:variables:data:in:ifGeneration:)`` under what the upstream said about the answer (its fields get
    /// their hinted `maxAge`), stamped `writtenAt` instead of now when given (an answer kept since then, served
    /// again: its age stays honest).
    func write(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject,
        data: GraphQLJSONObject,
        in scope: CacheScope,
        ifGeneration generation: CacheGeneration?,
        upstream: UpstreamCachePolicy,
        writtenAt: CacheInstant? = nil
    ) throws(GraphQLCacheError) -> GraphQLWriteOutcome {
        let definition = operation.operation
        let context = SelectionContext(
            fragments: operation.fragments,
            variables: definition.resolvedVariables(variables),
            configuration: cacheConfiguration
        )
        let now = writtenAt ?? clock.now()
        var normalizer = ResponseNormalizer(context: context, now: now, sizing: sizing, upstream: upstream)
        try normalizer.normalize(
            data: data,
            rootKey: Self.rootKey(of: definition.kind),
            rootTypename: cacheConfiguration.rootTypename(of: definition.kind),
            node: SelectionNode(selectionSets: [definition.selectionSet])
        )
        let outcome = merge(normalizer.drafts, at: now, in: scope, generation: generation)
        if let changeObserver, let changes = outcome.changes, !changes.isEmpty {
            changeObserver(scope, definition.kind, changes)
        }
        if let observer {
            let key = definition.name ?? "<anonymous>"
            switch outcome {
            case .written:
                observer.cacheDidEmit(.inserted(scope: scope, key: key, chargedBytes: normalizer.draftBytes))
            case .rejectedStaleGeneration:
                observer.cacheDidEmit(.rejected(scope: scope, key: key, outcome: .rejectedStaleGeneration))
            case .rejectedTooLarge:
                observer.cacheDidEmit(.rejected(scope: scope, key: key, outcome: .rejectedTooLarge))
            }
        }
        return outcome
    }

    /// Merges validated drafts under the scope's write lock, then enforces the limits.
    private func merge(
        _ drafts: [String: RecordDraft],
        at now: CacheInstant,
        in scope: CacheScope,
        generation: CacheGeneration?
    ) -> GraphQLWriteOutcome {
        let draftBytes = drafts.values.reduce(0) { $0 + $1.bytes }
        let (maxRecords, maxBytes) = liveLimits.current
        guard drafts.count <= maxRecords, draftBytes <= maxBytes, draftBytes <= budget?.limit ?? .max else {
            return .rejectedTooLarge
        }
        let access = partitions.withPartition(scope, ifGeneration: generation) { partition in
            (partition.table, partition.table.epoch.load(ordering: .sequentiallyConsistent))
        }
        guard let (table, epoch) = access else {
            return .rejectedStaleGeneration
        }
        let tick = table.nextTick()
        let configuration = configuration
        let sizing = sizing
        let budget = budget
        let evictsForBudget = budget.map { !$0.hasPrimaryReclaimer } ?? false
        let merged = table.write { state -> MergeResult? in
            guard !state.isDropped, table.epoch.load(ordering: .sequentiallyConsistent) == epoch else {
                return nil
            }
            let (changes, created) = state.apply(drafts, tick: tick, now: now, sizing: sizing, budget: budget)
            var result = MergeResult(changes: changes, created: created)
            if state.records.count > maxRecords {
                result.entryLimitEvictions = state.evictLeastRecent(
                    maxRecords: configuration.evictionTarget(maxRecords),
                    maxBytes: .max,
                    sparing: tick,
                    budget: budget
                )
            }
            if state.byteCount > maxBytes {
                result.byteLimitEvictions = state.evictLeastRecent(
                    maxRecords: .max,
                    maxBytes: configuration.evictionTarget(maxBytes),
                    sparing: tick,
                    budget: budget
                )
            }
            if evictsForBudget, let budget, budget.isOverLimit {
                // Over the process budget without a primary reclaimer: this scope pays first, from its least
                // recent end, never with the records just written. With one, the budget is asked below.
                result.budgetEvictions = state.evictLeastRecent(
                    maxRecords: .max,
                    maxBytes: max(0, state.byteCount - budget.excessBytes),
                    sparing: tick,
                    budget: budget
                )
            }
            if let next = state.takeSchedule() {
                writeQueue.schedule(scope, at: next)  // the queue's lock is a leaf: safe under the table's
            }
            return result
        }
        guard let merged else {
            return .rejectedStaleGeneration
        }
        table.countInserts(drafts.count)
        table.countEvictions(merged.evictedCount)
        if let budget, budget.isOverLimit {
            // Outside every lock: reclaimers may call back into the store (a session registry clears scopes).
            budget.reclaimExcess()
        }
        emitEvictions(merged.entryLimitEvictions, reason: .entryLimit, in: scope)
        emitEvictions(merged.byteLimitEvictions, reason: .byteLimit, in: scope)
        emitEvictions(merged.budgetEvictions, reason: .memoryBudget, in: scope)
        return .written(
            GraphQLChangeSet(
                changedFieldsByRecord: merged.changes,
                recordsWritten: drafts.count,
                recordsCreated: merged.created
            )
        )
    }

    /// The root record of an operation kind.
    static func rootKey(of kind: GraphQLOperationDefinition.Kind) -> String {
        switch kind {
        case .query: GraphQLRecord.queryRootKey
        case .mutation: GraphQLRecord.mutationRootKey
        case .subscription: GraphQLRecord.subscriptionRootKey
        }
    }
}

/// What a merge did, carried out of the write lock.
private struct MergeResult {
    var changes: [String: [String]]
    var created: Int
    var entryLimitEvictions = RemovalTally()
    var byteLimitEvictions = RemovalTally()
    var budgetEvictions = RemovalTally()

    var evictedCount: Int {
        entryLimitEvictions.recordKeys.count + byteLimitEvictions.recordKeys.count + budgetEvictions.recordKeys.count
    }
}
