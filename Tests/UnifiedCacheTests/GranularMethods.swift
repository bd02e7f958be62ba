import UnifiedCache

/// The twelve feature methods of `CacheManaging` with the domain each clears, for the table-driven clear tests of
/// both protocols.
let granularMethods: [(domain: String, clear: @Sendable (DefaultUnifiedCacheManager) async -> UnifiedClearReport)] = [
    ("balances", { await $0.clearBalancesCache() }),
    ("paymentList", { await $0.clearCacheForPaymentListOnly() }),
    ("accountSummary", { await $0.clearAccountSummaryCache() }),
    ("transactionHistory", { await $0.clearTransactionHistoryCache() }),
    ("cardsExperience", { await $0.clearCardsExperienceCache() }),
    ("payees", { await $0.clearPayeesCache() }),
    ("scheduledPayments", { await $0.clearScheduledPaymentsCache() }),
    ("userProfile", { await $0.clearUserProfileCache() }),
    ("statements", { await $0.clearStatementsCache() }),
    ("offers", { await $0.clearOffersCache() }),
    ("notifications", { await $0.clearNotificationsCache() }),
    ("featureFlags", { await $0.clearFeatureFlagsCache() }),
]
