import Foundation
import HTTPTypes
import Hummingbird
import UnifiedCache

/// The routes' work: one `CacheHub` for the process, one `CacheSession` per verified user (or per session id the
/// frontend sends in `X-Session-ID`, bound to that user).
struct BankBFF: Sendable {
    let hub: CacheHub
    let verifier: TokenVerifier
    let cacheEnabled: Bool

    static let sessionIDHeader = HTTPField.Name("X-Session-ID")!

    /// The session of a request: its principal from the verified token, its scope from the principal (and the
    /// session id when the frontend sends one). A client-chosen session id with another user's token gets a scope
    /// of its own: it never reaches the first user's data.
    func session(for request: Request) async throws -> CacheSession {
        let verified = try await verify(request)
        if let id = request.headers[Self.sessionIDHeader], !id.isEmpty {
            return hub.session(id: id, principal: verified.principal, credentials: .bearer(verified.token))
        }
        return hub.session(principal: verified.principal, credentials: .bearer(verified.token))
    }

    /// `POST /logout`: ends the request's session (the one of its `X-Session-ID`, or the user's), everything
    /// cleared, on every replica of the fleet (this one may never have served the user). Ending a session another
    /// user's token would name is impossible: the id's scope includes the user.
    func logout(_ request: Request) async throws {
        let verified = try await verify(request)
        if let id = request.headers[Self.sessionIDHeader], !id.isEmpty {
            await hub.endSession(id: id, principal: verified.principal)
        } else {
            await hub.endSession(principal: verified.principal)
        }
    }

    /// `GET /health`: `ok`, and on a replica of a fleet the state of its two Redis links, e.g.
    /// `ok replication=up second_level=up` (`reconnecting` while Redis is unreachable). Always 200: without Redis a
    /// replica still serves from its memory and the upstreams, so the load balancer must keep sending it requests.
    func health() -> String {
        guard let replication = hub.replicationStatistics else { return "ok" }
        let link =
            switch replication.linkState {
            case .subscribed: "up"
            case .connecting: replication.disconnections == 0 ? "connecting" : "reconnecting"
            case .disconnected: "reconnecting"
            case .stopped: "stopped"
            }
        let secondLevel = hub.secondLevelStatistics.map { $0.store.isConnected ? "up" : "reconnecting" } ?? "off"
        return "ok replication=\(link) second_level=\(secondLevel)"
    }

    /// The verified principal and token of a request: 401 without a token the upstream knows.
    private func verify(_ request: Request) async throws -> (principal: VerifiedPrincipal, token: String) {
        do {
            return try await verifier.principal(authorization: request.headers[.authorization])
        } catch .rejected {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "unauthorized")
        } catch .upstreamUnavailable {
            throw HTTPError(.badGateway, message: "could not verify the token")
        }
    }

    /// `GET /dashboard`: the account list (REST) and the balances (GraphQL), fetched concurrently through the
    /// session's cache.
    func dashboard(_ session: CacheSession) async throws -> Dashboard {
        async let summaries = session.rest.perform(
            with: AccountSummaryRequest(cachePolicy: cacheEnabled ? .cacheFirst : .networkOnly))
        async let balances = session.graphQL.fetch(
            query: AccountBalancesQuery(),
            cachePolicy: cacheEnabled ? .returnCacheDataElseFetch : .fetchIgnoringCacheCompletely)
        let accounts: [AccountSummary]
        switch await summaries {
        case .success(let value): accounts = value
        case .failure(.http(status: 401, _)): throw HTTPError(.unauthorized, message: "unauthorized")
        case .failure(let error): throw Self.upstreamFailure(error)
        }
        let balanceList: [AccountBalancesQuery.Balance]
        switch await balances {
        case .success(let result): balanceList = result.data.accounts
        case .failure(let error): throw Self.upstreamFailure(error.code)
        }
        let balanceByID = Dictionary(balanceList.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return Dashboard(
            user: session.principal.subject,
            accounts: accounts.map { account in
                let balance = balanceByID[account.id]
                return Dashboard.Account(
                    id: account.id, name: account.name, type: account.type,
                    balance: balance?.balance, availableBalance: balance?.availableBalance)
            }
        )
    }

    /// `POST /payments`: the GraphQL mutation through the session. Its answer names the paying account, so the hub
    /// drops that account's cached REST entries and balance fields: the next dashboard shows the new balance.
    func pay(_ input: PaymentInput, session: CacheSession) async throws -> PaymentReceipt {
        switch await session.graphQL.perform(mutation: MakePaymentMutation(input: input)) {
        case .success(let result):
            let payment = result.data.makePayment
            return PaymentReceipt(
                transactionId: payment.transaction.id, amount: payment.transaction.amount,
                accountId: payment.account.id, balance: payment.account.balance,
                availableBalance: payment.account.availableBalance)
        case .failure(let error):
            throw HTTPError(.unprocessableContent, message: "payment refused (\(error.code))")
        }
    }

    /// An upstream failure as the frontend sees it: its stable code, never the upstream's body or the token.
    static func upstreamFailure(_ code: some CustomStringConvertible) -> HTTPError {
        HTTPError(.badGateway, message: "upstream failed (\(code))")
    }
}

/// The dashboard's answer (written by `DashboardJSON.swift`; `Encodable` for other uses of the same shape).
struct Dashboard: Encodable {
    var user: String
    var accounts: [Account]

    struct Account: Encodable {
        var id: String
        var name: String
        var type: String
        var balance: Double?
        var availableBalance: Double?
    }
}

/// The answer to a payment.
struct PaymentReceipt: ResponseEncodable {
    var transactionId: String
    var amount: Double
    var accountId: String
    var balance: Double
    var availableBalance: Double
}
