import RESTCache

extension EntityLinks {
    /// The links of the fixture bank's API (`Fixtures/README.md`): REST answers name the accounts, cards, payees
    /// and profile they describe; payments move balances, profile updates replace the profile, deleted cards go.
    public static let banking = EntityLinks(
        reads: [
            Read("GET /api/accounts", typename: "Account", idPaths: ["[].id"]),
            Read("GET /api/accounts/*", typename: "Account", idPaths: ["id"]),
            Read("GET /api/accounts/by-token/*", typename: "Account", idPaths: ["id"]),
            Read("GET /api/accounts/*/balance", typename: "Account", idPaths: ["accountId"]),
            Read("GET /api/accounts/*/transactions", typename: "Account", idPaths: ["items[].accountId"]),
            Read("GET /api/cards", typename: "Card", idPaths: ["[].id"]),
            Read("GET /api/payees", typename: "Payee", idPaths: ["[].id"]),
            Read("GET /api/profile", typename: "Profile", idPaths: ["id"]),
        ],
        mutations: [
            Mutation(
                "POST /api/payments",
                target: .entity(typename: "Account", idPaths: ["account.id"]),
                evictedFields: ["balance", "availableBalance", "transactions"]
            ),
            Mutation("POST /api/payments", target: .record("QUERY_ROOT"), evictedFields: ["payments"]),
            Mutation("PUT /api/profile", target: .entity(typename: "Profile", idPaths: ["id"])),
            Mutation("PATCH /api/profile", target: .entity(typename: "Profile", idPaths: ["id"])),
            Mutation("DELETE /api/cards/*", target: .entity(typename: "Card", pathSegment: 3)),
            Mutation("POST /api/payees", target: .record("QUERY_ROOT"), evictedFields: ["payees"]),
        ]
    )
}
