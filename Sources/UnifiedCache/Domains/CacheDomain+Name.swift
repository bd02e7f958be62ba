extension CacheDomain {
    /// The name of a feature's cache domain, such as `balances`.
    ///
    /// A name is also the REST domain tag entries carry by default, the key under `domains` in the settings file and
    /// the suffix of `UCACHE_DOMAIN_<NAME>`, so it follows the GraphQL name rule (`[_A-Za-z][_0-9A-Za-z]*`): no dots,
    /// dashes or spaces that would be ambiguous in any of those places. The static members name the domains behind
    /// the granular clearing methods of the seeds' `CacheManaging`, so the facade finds them without string typos.
    public struct Name: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The name as written, e.g. `"transactionHistory"`.
        public let rawValue: String

        /// Checks the spelling.
        ///
        /// - Throws: `.invalidDomain` when `rawValue` is not a GraphQL-style name.
        public init(_ rawValue: String) throws(UnifiedCacheError) {
            guard NameRules.isGraphQLName(rawValue) else {
                throw UnifiedCacheError(
                    code: .invalidDomain,
                    message: "a domain name must be a GraphQL-style name ([_A-Za-z][_0-9A-Za-z]*), got "
                        + NameRules.quoted(rawValue)
                )
            }
            self.rawValue = rawValue
        }

        /// For names written in code. A literal that breaks the spelling rule is a programming error and traps at
        /// once, rather than surfacing later as a domain nobody can configure. `Name("…")` with a literal argument
        /// comes here too (Swift's literal coercion); pass a variable to get the throwing check.
        public init(stringLiteral value: String) {
            precondition(NameRules.isGraphQLName(value), "invalid cache domain name literal \"\(value)\"")
            rawValue = value
        }

        public var description: String {
            rawValue
        }

        public static func < (lhs: Name, rhs: Name) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        /// The name in the form environment variables use: upper case, underscores dropped, so that
        /// `UCACHE_DOMAIN_TRANSACTION_HISTORY` and `UCACHE_DOMAIN_TRANSACTIONHISTORY` both find `transactionHistory`.
        var environmentForm: String {
            String(rawValue.uppercased().filter { $0 != "_" })
        }
    }
}

extension CacheDomain.Name {
    /// Current balance and available balance of accounts — `clearBalancesCache()`.
    public static let balances: Self = "balances"
    /// The list of payments made — `clearCacheForPaymentListOnly()`.
    public static let paymentList: Self = "paymentList"
    /// The account list and each account's descriptive fields — `clearAccountSummaryCache()`.
    public static let accountSummary: Self = "accountSummary"
    /// Transactions of accounts — `clearTransactionHistoryCache()`.
    public static let transactionHistory: Self = "transactionHistory"
    /// Cards — `clearCardsExperienceCache()`.
    public static let cardsExperience: Self = "cardsExperience"
    /// Payment recipients — `clearPayeesCache()`.
    public static let payees: Self = "payees"
    /// Recurring and future-dated payments — `clearScheduledPaymentsCache()`.
    public static let scheduledPayments: Self = "scheduledPayments"
    /// The user's profile — `clearUserProfileCache()`.
    public static let userProfile: Self = "userProfile"
    /// Account statements — `clearStatementsCache()`.
    public static let statements: Self = "statements"
    /// Marketing offers (localized) — `clearOffersCache()`.
    public static let offers: Self = "offers"
    /// The user's notifications — `clearNotificationsCache()`.
    public static let notifications: Self = "notifications"
    /// Global feature flags — `clearFeatureFlagsCache()`.
    public static let featureFlags: Self = "featureFlags"

    /// The twelve feature domains behind the granular methods of `CacheManaging`, in the seed's order. The other
    /// three methods (`clearCache()`, `clearCache(forAccountToken:)`, `clearCache(forAccountId:)`) clear by session
    /// and account, not by domain.
    public static let granularMethodDomains: [Self] = [
        .balances, .paymentList, .accountSummary, .transactionHistory, .cardsExperience, .payees,
        .scheduledPayments, .userProfile, .statements, .offers, .notifications, .featureFlags,
    ]
}

extension CacheDomain.Name: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error)
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
