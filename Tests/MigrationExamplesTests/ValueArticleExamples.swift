import Foundation
import RESTCache
import UnifiedCache

// The code the DocC article "Caching any value" quotes (QuotedDocumentsTests checks it is verbatim here).

/// What the dashboard route answers: composed from two upstream calls, worth caching per user.
struct UserDashboard: Codable, Sendable {
    var displayName: String
    var accountIDs: [String]
}

/// The body of `GET /dashboard`: the verified user's session, then one dashboard per user, composed at most once
/// every 30 seconds however many of the user's requests arrive at once.
func dashboard(hub: CacheHub, sessionID: String, user: VerifiedPrincipal, token: String) async throws -> UserDashboard {
    let session = hub.session(id: sessionID, principal: user, credentials: .bearer(token))
    return try await session.values.value(
        forKey: "dashboard", tags: ["accounts"], options: .init(duration: .seconds(30))
    ) {
        async let profile = session.rest.response(for: ProfileRequest())
        async let accounts = session.rest.response(for: AccountsRequest())
        return try await UserDashboard(displayName: profile.displayName, accountIDs: accounts.map(\.id))
    }
}

/// A payment changed the user's accounts: their dashboards go, on every replica.
func paymentMade(in session: CacheSession) async {
    await session.values.clear(tag: "accounts")
}

/// Exchange rates are the same for everyone: one copy in the shared scope, for every session.
func exchangeRates(hub: CacheHub, fetch: @escaping @Sendable () async throws -> [String: Double]) async throws
    -> [String: Double]
{
    try await hub.values.value(
        forKey: "rates", tags: ["rates"], options: .init(duration: .seconds(300)), factory: fetch)
}
