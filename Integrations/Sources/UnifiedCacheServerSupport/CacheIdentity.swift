import UnifiedCache

/// Who a request is, as the app's authenticator verified it: what a framework adapter asks the hub a session for.
public struct CacheIdentity: Sendable {
    /// The verified user.
    public var principal: VerifiedPrincipal
    /// What the session sends upstream on the user's behalf.
    public var credentials: APIService.Credentials
    /// The client's session id (a cookie), for several sessions per user; nil for one session per user.
    public var sessionID: String?

    public init(principal: VerifiedPrincipal, credentials: APIService.Credentials, sessionID: String? = nil) {
        self.principal = principal
        self.credentials = credentials
        self.sessionID = sessionID
    }

    /// The owner of `authorization`'s bearer token as `verifier` learns it from the upstream, with the same token
    /// as the session's credentials; nil without a header (an anonymous request).
    ///
    /// - Throws: the verifier's error: `.tokenRejected` for a token the upstream refused (the adapters answer 401),
    ///   anything else when the upstream could not say (502).
    package static func bearer(
        authorization: String?, verifier: UpstreamTokenVerifier
    ) async throws(UnifiedCacheError) -> CacheIdentity? {
        guard let authorization else { return nil }
        let principal = try await verifier.principal(authorization: authorization)
        let token = UpstreamTokenVerifier.bearerToken(authorization) ?? ""
        return CacheIdentity(principal: principal, credentials: .bearer(token))
    }
}

extension CacheHub {
    /// The session of `identity`: its client session when it names one, else the user's only session.
    package func session(for identity: CacheIdentity) -> CacheSession {
        guard let sessionID = identity.sessionID else {
            return session(principal: identity.principal, credentials: identity.credentials)
        }
        return session(id: sessionID, principal: identity.principal, credentials: identity.credentials)
    }

    /// Logout for `identity`: ends its session on every replica (everything of theirs cleared, answers in flight
    /// not stored).
    package func endSession(for identity: CacheIdentity) async -> UnifiedClearReport? {
        if let sessionID = identity.sessionID {
            return await endSession(id: sessionID, principal: identity.principal)
        }
        return await endSession(principal: identity.principal)
    }
}
