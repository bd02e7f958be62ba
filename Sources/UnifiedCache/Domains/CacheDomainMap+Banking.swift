extension CacheDomainMap {
    /// The built-in map behind the granular clearing methods of the seeds' `CacheManaging`, matching the bank the
    /// fixture server serves (REST under `/api/`, GraphQL at `/graphql`; see `Fixtures/README.md`).
    ///
    /// Conventions the map relies on, so that callers who follow them need no configuration:
    /// - REST entries are tagged with the domain's name (`Cacheable.domains`) or keyed `<domain>.<rest>`
    ///   (`"balances.101"`, `"cardsExperienceV3.page_1.key"`), or fetched from one of the listed routes;
    /// - GraphQL operations are named as listed (the domain's name in PascalCase, plus the names the seeds use);
    /// - a type owned by one feature (`Card`, `Payee`) is listed as a typename, so all its records go; a type shared
    ///   by features (`Account`) is split into schema coordinates, so a feature clear evicts only its fields;
    /// - root fields are listed as `Query.<field>`, which drops the cached link from the root to the feature's data.
    ///
    /// Two clears overlap by design, because the data does: `Payee` records are read through
    /// `ScheduledPayment.payee` too, so clearing payees also makes scheduled-payment queries that select the payee a
    /// miss; and `Account.transactions` belongs to transaction history, so a query reading an account's
    /// transactions misses after that clear while the account's other fields stay.
    public static let banking: CacheDomainMap = {
        // The domains are distinct and valid (the built-in map's tests check both), so merging cannot fail.
        var map = CacheDomainMap()
        for domain in bankingDomains {
            map.merge(domain)
        }
        return map
    }()

    private static let bankingDomains: [CacheDomain] = [
        // `GET /api/accounts/{id}/balance`; in GraphQL only the two balance fields of `Account`.
        bank(
            .balances,
            "Current and available balance of each account.",
            prefixes: ["balances."],
            paths: ["/api/accounts/*/balance"],
            operations: ["AccountBalance", "GetBalance", "GetAccountBalance"],
            coordinates: ["Account.balance", "Account.availableBalance"]
        ),
        // `GET /api/payments`; `Query.payments` and the `Payment` records.
        bank(
            .paymentList,
            "Payments the user made, newest first.",
            prefixes: ["paymentList."],
            paths: ["/api/payments"],
            operations: ["PaymentList", "Payments"],
            typenames: ["Payment"],
            coordinates: ["Query.payments"]
        ),
        // `GET /api/accounts`, `/api/accounts/{id}`, `/api/accounts/by-token/{token}`; in GraphQL the account lists
        // and the descriptive fields of `Account` (balances and transactions are their own domains, and the
        // identity fields `id`/`accountToken` stay so records remain addressable).
        bank(
            .accountSummary,
            "The account list and each account's name, type and currency.",
            prefixes: ["accountSummary."],
            paths: ["/api/accounts", "/api/accounts/*", "/api/accounts/by-token/*"],
            operations: ["AccountSummary", "AccountDetails", "GetAccount", "GetAccountDetails"],
            coordinates: ["Query.accounts", "User.accounts", "Account.name", "Account.type", "Account.currency"]
        ),
        // `GET /api/accounts/{id}/transactions`; `Transaction` records, `Query.transactions`, `Account.transactions`.
        bank(
            .transactionHistory,
            "Transactions of each account, paged.",
            prefixes: ["transactionHistory."],
            paths: ["/api/accounts/*/transactions"],
            operations: ["TransactionHistory", "GetTransactions"],
            typenames: ["Transaction"],
            coordinates: ["Query.transactions", "Account.transactions"]
        ),
        // `GET /api/cards`; `Card` records and `Query.cards`. Keys of the seed's `cardsExperienceV3.page_1.key`
        // form are covered by their own prefix.
        bank(
            .cardsExperience,
            "The user's cards and their status.",
            prefixes: ["cardsExperience.", "cardsExperienceV3."],
            paths: ["/api/cards"],
            operations: ["CardsExperience", "Cards"],
            typenames: ["Card"],
            coordinates: ["Query.cards"]
        ),
        // `GET /api/payees`; `Payee` records and `Query.payees`.
        bank(
            .payees,
            "Payment recipients.",
            prefixes: ["payees."],
            paths: ["/api/payees"],
            operations: ["Payees"],
            typenames: ["Payee"],
            coordinates: ["Query.payees"]
        ),
        // `GET /api/scheduled-payments`; `ScheduledPayment` records and `Query.scheduledPayments`.
        bank(
            .scheduledPayments,
            "Recurring and future-dated payments.",
            prefixes: ["scheduledPayments."],
            paths: ["/api/scheduled-payments"],
            operations: ["ScheduledPayments"],
            typenames: ["ScheduledPayment"],
            coordinates: ["Query.scheduledPayments"]
        ),
        // `GET /api/profile`; `Profile` records, `Query.profile` and `User.profile`.
        bank(
            .userProfile,
            "The user's display name, email and phone.",
            prefixes: ["userProfile."],
            paths: ["/api/profile"],
            operations: ["UserProfile", "GetUserProfile", "GetUser"],
            typenames: ["Profile"],
            coordinates: ["Query.profile", "User.profile"]
        ),
        // `GET /api/statements`; `Statement` records and `Query.statements`.
        bank(
            .statements,
            "Monthly statements of each account.",
            prefixes: ["statements."],
            paths: ["/api/statements"],
            operations: ["Statements"],
            typenames: ["Statement"],
            coordinates: ["Query.statements"]
        ),
        // `GET /api/offers` (varies by Accept-Language); `Offer` records and `Query.offers`.
        bank(
            .offers,
            "Marketing offers in the user's language.",
            prefixes: ["offers."],
            paths: ["/api/offers"],
            operations: ["Offers"],
            typenames: ["Offer"],
            coordinates: ["Query.offers"]
        ),
        // `GET /api/notifications` (sent with `no-store`, so REST keeps it only when a request insists);
        // `Notification` records and `Query.notifications`.
        bank(
            .notifications,
            "The user's notifications, read and unread.",
            prefixes: ["notifications."],
            paths: ["/api/notifications"],
            operations: ["Notifications"],
            typenames: ["Notification"],
            coordinates: ["Query.notifications"]
        ),
        // `GET /api/feature-flags` (public, usually cached in the shared scope); `FeatureFlag` records (keyed by
        // path, they have no id) and `Query.featureFlags`.
        bank(
            .featureFlags,
            "Feature switches, the same for every user.",
            prefixes: ["featureFlags."],
            paths: ["/api/feature-flags"],
            operations: ["FeatureFlags"],
            typenames: ["FeatureFlag"],
            coordinates: ["Query.featureFlags"]
        ),
    ]

    private static func bank(
        _ name: CacheDomain.Name,
        _ summary: String,
        prefixes: Set<String>,
        paths: Set<String>,
        operations: Set<String>,
        typenames: Set<String> = [],
        coordinates: [String]
    ) -> CacheDomain {
        CacheDomain(
            unchecked: name,
            summary: summary,
            restDomains: [name.rawValue],
            restKeyPrefixes: prefixes,
            restPathPatterns: paths,
            graphQLOperations: operations,
            typenames: typenames,
            schemaCoordinates: Set(coordinates.map { SchemaCoordinate(unchecked: $0) })
        )
    }
}
