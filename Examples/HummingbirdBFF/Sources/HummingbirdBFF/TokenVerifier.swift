import Foundation
import Synchronization
import UnifiedCache

/// Turns a bearer token into the user it belongs to, the stand-in for real JWT verification.
///
/// The bank fixture has no JWTs: its tokens (`token-alice`, `token-bob`, …) are opaque. The verifier asks the
/// upstream who a token belongs to (`GET /api/profile`, whose `id` is the user id) once per token and keeps the
/// verdict in memory, so the principal of a session is always who the upstream says, never an id the client chose.
/// A real deployment verifies a JWT's signature and takes its `sub` instead, with no upstream call at all.
final class TokenVerifier: Sendable {
    /// Why a token was not turned into a principal.
    enum Failure: Error {
        /// The upstream does not know the token (401): the BFF answers 401 too.
        case rejected
        /// The upstream could not say (down, 5xx, an unreadable answer): the BFF answers 502, and the verdict is
        /// not kept, so the next request asks again.
        case upstreamUnavailable
    }

    private let profileURL: String
    private let client: CurlHTTPClient
    private let verdicts = Mutex<[String: String?]>([:])
    /// Past this many remembered tokens the memory starts over: a flood of made-up tokens cannot grow it unbounded.
    private let maximumVerdicts = 10_000

    init(upstream: String, client: CurlHTTPClient) {
        profileURL = upstream + "/api/profile"
        self.client = client
    }

    /// The principal of `authorization` (an `Authorization` header value, `Bearer <token>`).
    func principal(authorization: String?) async throws(Failure) -> (principal: VerifiedPrincipal, token: String) {
        guard let token = Self.bearerToken(authorization) else { throw .rejected }
        if let known = verdicts.withLock({ $0[token] }) {
            guard let subject = known else { throw .rejected }
            return (VerifiedPrincipal(subject), token)
        }
        let subject = try await askUpstream(token: token)
        verdicts.withLock { verdicts in
            if verdicts.count >= maximumVerdicts {
                verdicts.removeAll(keepingCapacity: true)
            }
            verdicts[token] = .some(subject)
        }
        guard let subject else { throw .rejected }
        return (VerifiedPrincipal(subject), token)
    }

    private struct Profile: Decodable {
        var id: String
    }

    /// The user id of `token`, `nil` when the upstream rejects it.
    private func askUpstream(token: String) async throws(Failure) -> String? {
        let request = CurlHTTPClient.Request(url: profileURL, headers: ["Authorization": "Bearer \(token)"])
        let response: CurlHTTPClient.Response
        do {
            response = try await client.execute(request)
        } catch {
            throw .upstreamUnavailable
        }
        if response.status == 401 || response.status == 403 {
            return nil
        }
        guard response.isSuccess, let profile = try? JSONDecoder().decode(Profile.self, from: response.body) else {
            throw .upstreamUnavailable
        }
        return profile.id
    }

    /// The token of a `Bearer` header value (the scheme is case-insensitive), `nil` for anything else.
    ///
    /// Runs on every request: plain UTF-8 comparisons, no Foundation `trimmingCharacters` or `lowercased()`
    /// (they cost about 3% of a cached dashboard request's CPU).
    static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let utf8 = authorization.utf8
        let scheme = "bearer".utf8
        guard utf8.count > scheme.count,
            zip(utf8, scheme).allSatisfy({ $0 | 0x20 == $1 }),
            let separator = utf8.dropFirst(scheme.count).first, separator == UInt8(ascii: " ")
        else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let rest = utf8.dropFirst(scheme.count)
        guard let start = rest.firstIndex(where: { !isBlank($0) }),
            let end = rest.lastIndex(where: { !isBlank($0) })
        else { return nil }
        return String(decoding: rest[start...end], as: UTF8.self)
    }
}
