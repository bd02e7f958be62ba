import CacheCore
import GraphQLLanguage

extension GraphQLNormalizedStore {
    /// Removes, in one clear (the scope moves to a new generation, so answers in flight are not stored), the
    /// records `shouldRemoveRecord` selects and the fields `shouldRemoveField` selects from the records that
    /// stay; then, optionally, the fields left referencing a record that no longer exists and the records no
    /// root reaches any more.
    ///
    /// This is the building block of clears that follow the data rather than one key, such as "everything about
    /// account 101": its record, the root fields whose arguments name it, and what pointed at it. The closures
    /// run under the scope's write lock and must not call back into the store. Costs a scan of the scope.
    /// - Returns: the removed records (``GraphQLEvictionReport/recordKeys`` lists them, garbage included) and
    ///   every removed field, those of kept records included.
    @discardableResult
    public func removeSelected(
        records shouldRemoveRecord: (_ key: String, _ typename: String?) -> Bool,
        fields shouldRemoveField: (_ recordKey: String, _ storageKey: String) -> Bool,
        removingDanglingReferences: Bool = true,
        collectingGarbage: Bool = false,
        in scope: CacheScope,
        reason: ClearReason = .manual
    ) -> GraphQLEvictionReport {
        let start = ContinuousClock.now
        let table = partitions.withPartitionClearing(scope) { partition in
            partition.table.advanceEpoch()
            return partition.table
        }
        let budget = budget
        let sizing = sizing
        let tally =
            table?.write { state -> RemovalTally in
                var tally = state.removeRecords(budget: budget) { shouldRemoveRecord($0.key, $0.typename) }
                let fields = state.removeFields(ofRecords: nil, sizing: sizing, budget: budget) { record, key, _ in
                    shouldRemoveField(record.key, key)
                }
                tally.fields += fields.fields
                tally.bytes += fields.bytes
                if removingDanglingReferences {
                    let records = state.records
                    let dangling = state.removeFields(ofRecords: nil, sizing: sizing, budget: budget) { _, _, field in
                        var dangles = false
                        field.value.forEachReference { key in
                            if records[key] == nil {
                                dangles = true
                            }
                        }
                        return dangles
                    }
                    tally.fields += dangling.fields
                    tally.bytes += dangling.bytes
                }
                if collectingGarbage {
                    let garbage = state.collectGarbage(budget: budget)
                    tally.recordKeys += garbage.recordKeys
                    tally.fields += garbage.fields
                    tally.bytes += garbage.bytes
                }
                return tally
            } ?? RemovalTally()
        emitRemovals(tally, in: scope)
        let report = report(tally, since: start)
        observer?.cacheDidEmit(
            .cleared(
                ClearReport(
                    scope: scope,
                    target: .predicate,
                    reason: reason,
                    entries: report.records,
                    bytes: report.bytes,
                    keptUplifted: 0,
                    duration: report.duration
                )
            )
        )
        return report
    }

    /// The storage keys under which an operation's top-level fields are kept in its root record
    /// (`account({"id":"101"})`) for these variables: what a query-level clear removes from the root.
    /// - Throws: `invalidVariables` when `@include`/`@skip` cannot be evaluated.
    public func rootStorageKeys(
        of operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject = GraphQLJSONObject()
    ) throws(GraphQLCacheError) -> [String] {
        let definition = operation.operation
        let context = SelectionContext(
            fragments: operation.fragments,
            variables: definition.resolvedVariables(variables),
            configuration: cacheConfiguration
        )
        let node = SelectionNode(selectionSets: [definition.selectionSet])
        do {
            let collected = try node.fields(for: cacheConfiguration.rootTypename(of: definition.kind), in: context)
            return collected.fields.filter { !$0.isTypename }.map { context.storageKey(of: $0) }
        } catch {
            switch error {
            case .needsTypename:
                return []
            case .invalidVariables(let message):
                throw GraphQLCacheError(code: .invalidVariables, message: message + ".")
            }
        }
    }
}
