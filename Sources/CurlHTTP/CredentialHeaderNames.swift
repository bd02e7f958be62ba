extension UpstreamCredentials {
    /// Header names that prove who asks whatever sets them: an answer that depends on one of them is never shared
    /// between sessions, and a request that carries one is never stored where other sessions read.
    public static let standardCredentialHeaderNames = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The extra credential header names a configuration starts with: `X-Api-Key`, the common API-key header.
    public static let defaultExtraCredentialHeaderNames = ["X-Api-Key"]

    /// Whether `name` is a credential for the rules of what is shared between sessions: one of
    /// ``standardCredentialHeaderNames``, one of `extra` (a configuration's own list), or a header these
    /// credentials set (a session that sends `X-Tenant` through its credentials makes `X-Tenant` a credential:
    /// it is who asks, not what is asked). Case-insensitive.
    public func isCredentialHeader(_ name: String, extra: [String]) -> Bool {
        Self.isCredentialHeader(name, extra: extra) || headers.contains(name)
    }

    /// ``isCredentialHeader(_:extra:)`` without a session: the standard names and `extra`.
    public static func isCredentialHeader(_ name: String, extra: [String]) -> Bool {
        standardCredentialHeaderNames.contains { $0.equalsIgnoringASCIICase(name) }
            || extra.contains { $0.equalsIgnoringASCIICase(name) }
    }
}

extension CurlHTTPClient {
    /// The headers `request` goes out with once the configured ``Configuration/requestDecorator`` has run: what an
    /// answer that varies on a request header was really asked with (a decorator may add a tenant or a language
    /// from the caller's context). Runs the decorator in the calling task, as ``execute(_:)`` does.
    public func sentHeaders(of request: Request) -> Headers {
        configuration.decorated(request).headers
    }
}
