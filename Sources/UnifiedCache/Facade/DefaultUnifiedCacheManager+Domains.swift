import CacheCore
import GraphQLCache
import RESTCache

extension DefaultUnifiedCacheManager {
    /// Clears one feature in both protocols: REST entries tagged with (or keyed under) the domain, GraphQL records of
    /// its types, its fields (schema coordinates) and its operations' results. Uplifted entries stay.
    ///
    /// The domain is the one of that name in the settings' map; a name the map does not define but the fixture
    /// bank's preset does (``CacheDomainMap/banking``: `balances`, `payees`, …) is cleared as the preset defines it,
    /// so the fifteen granular clears (``clearBalancesCache()`` …) clear what they always cleared whether the hub
    /// opted into the preset or not (see <doc:ClearingCaches>). Any other unknown name reports `.unknownDomain` and
    /// clears nothing.
    @discardableResult
    public func clear(domain name: CacheDomain.Name, operation: String? = nil, reason: ClearReason = .manual) async
        -> UnifiedClearReport
    {
        var run = ClearRun(operation ?? "clear(domain: \(name))", reason: reason)
        guard let domain = settings.current.domainMap[name] ?? CacheDomainMap.banking[name] else {
            run.part("domain") { _ in
                throw UnifiedCacheError(code: .unknownDomain, message: "No cache domain is named '\(name)'.")
            }
            return run.finished()
        }
        run.part("rest") { part in
            for tag in domain.restDomains.sorted() {
                let report = rest.clearCache(domain: tag, reason: reason)
                part.entries += report.entries
                part.bytes += report.bytes
            }
            for prefix in domain.restKeyPrefixes.sorted() {
                let report = rest.clearCache(keyPrefix: prefix, reason: reason)
                part.entries += report.entries
                part.bytes += report.bytes
            }
        }
        await run.part("graphql") { part in
            for typename in domain.typenames.sorted() {
                add(graphQLStore.removeRecords(ofTypename: typename, in: scope, reason: reason), to: &part)
            }
            for coordinate in domain.schemaCoordinates.sorted() {
                let report = graphQLStore.evictField(
                    coordinate.field, ofTypename: coordinate.typename, in: scope,
                    reason: reason)
                add(report, to: &part)
            }
            for operationName in domain.graphQLOperations.sorted() {
                let removed = await graphQL.clearCache(forQuery: operationName, reason: reason)
                part.records += removed.records
                part.fields += removed.fields
                part.bytes += removed.bytes
            }
        }
        if let values, !domain.valueTags.isEmpty {
            run.part("values") { part in
                for tag in domain.valueTags.sorted() {
                    let report = values.clear(domain: tag, in: scope, reason: reason)
                    part.entries += report.entries
                    part.bytes += report.bytes
                }
            }
        }
        await secondLevel?.clear(domain.secondLevelLabels, in: scope)
        replication?.publish(.domain(name: name.rawValue, reason: reason.replicatedName))
        return run.finished()
    }

    private func add(_ report: GraphQLEvictionReport, to part: inout UnifiedClearReport.Part) {
        part.records += report.records
        part.fields += report.fields
        part.bytes += report.bytes
    }

    @discardableResult
    public func clearCache() async -> UnifiedClearReport {
        await clearEverything(operation: "clearCache()", reason: .logout)
    }

    @discardableResult
    public func clearBalancesCache() async -> UnifiedClearReport {
        await clear(domain: .balances, operation: "clearBalancesCache()")
    }

    @discardableResult
    public func clearCacheForPaymentListOnly() async -> UnifiedClearReport {
        await clear(domain: .paymentList, operation: "clearCacheForPaymentListOnly()")
    }

    @discardableResult
    public func clearAccountSummaryCache() async -> UnifiedClearReport {
        await clear(domain: .accountSummary, operation: "clearAccountSummaryCache()")
    }

    @discardableResult
    public func clearTransactionHistoryCache() async -> UnifiedClearReport {
        await clear(domain: .transactionHistory, operation: "clearTransactionHistoryCache()")
    }

    @discardableResult
    public func clearCardsExperienceCache() async -> UnifiedClearReport {
        await clear(domain: .cardsExperience, operation: "clearCardsExperienceCache()")
    }

    @discardableResult
    public func clearPayeesCache() async -> UnifiedClearReport {
        await clear(domain: .payees, operation: "clearPayeesCache()")
    }

    @discardableResult
    public func clearScheduledPaymentsCache() async -> UnifiedClearReport {
        await clear(domain: .scheduledPayments, operation: "clearScheduledPaymentsCache()")
    }

    @discardableResult
    public func clearUserProfileCache() async -> UnifiedClearReport {
        await clear(domain: .userProfile, operation: "clearUserProfileCache()")
    }

    @discardableResult
    public func clearStatementsCache() async -> UnifiedClearReport {
        await clear(domain: .statements, operation: "clearStatementsCache()")
    }

    @discardableResult
    public func clearOffersCache() async -> UnifiedClearReport {
        await clear(domain: .offers, operation: "clearOffersCache()")
    }

    @discardableResult
    public func clearNotificationsCache() async -> UnifiedClearReport {
        await clear(domain: .notifications, operation: "clearNotificationsCache()")
    }

    @discardableResult
    public func clearFeatureFlagsCache() async -> UnifiedClearReport {
        await clear(domain: .featureFlags, operation: "clearFeatureFlagsCache()")
    }

    /// Only the uplifted REST entries (the explicit uplifted clear).
    @discardableResult
    public func clearUpliftedCache() async -> UnifiedClearReport {
        var run = ClearRun("clearUpliftedCache()", reason: .manual)
        run.part("rest") { part in
            let report = rest.clearUplifted()
            part.entries = report.entries
            part.bytes = report.bytes
        }
        await secondLevel?.clear([.uplifted], in: scope)
        replication?.publish(.uplifted)
        return run.finished()
    }
}

extension CacheDomain {
    /// What clearing this domain removes from a session's second level: its REST tags, key prefixes and value tags,
    /// and the session's GraphQL entries when the domain names GraphQL types, fields or operations.
    var secondLevelLabels: Set<SecondLevelNames.Label> {
        var labels = Set(restDomains.map { SecondLevelNames.Label.domain($0) })
        labels.formUnion(restKeyPrefixes.map { .keyPrefix($0) })
        labels.formUnion(valueTags.map { .valueTag($0) })
        if !typenames.isEmpty || !schemaCoordinates.isEmpty || !graphQLOperations.isEmpty {
            labels.insert(.kind(.graphQL))
        }
        return labels
    }
}
