/// What a session sends upstream to prove who it is: headers (`Authorization: Bearer …`) and its cookie jar.
///
/// One type for both halves: REST's `APIService.Credentials` and GraphQL's `GraphQLClient.Credentials` are this.
public struct UpstreamCredentials: Sendable {
    /// Headers such as `Authorization: Bearer …`; they override configured headers of the same name.
    public var headers: CurlHTTPClient.Headers
    /// The session's upstream cookie jar (cleared on logout by the facade).
    public var cookieJar: CookieJar?

    /// Creates credentials.
    public init(headers: CurlHTTPClient.Headers = [:], cookieJar: CookieJar? = nil) {
        self.headers = headers
        self.cookieJar = cookieJar
    }

    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String, cookieJar: CookieJar? = nil) -> UpstreamCredentials {
        UpstreamCredentials(headers: ["Authorization": "Bearer \(token)"], cookieJar: cookieJar)
    }

    /// No credentials.
    public static let none = UpstreamCredentials()
}

extension UpstreamCredentials: CustomStringConvertible {
    /// Header names only: their values are secrets.
    public var description: String {
        let names = headers.map(\.name).joined(separator: ", ")
        return "Credentials(headers: [\(names)], cookieJar: \(cookieJar == nil ? "none" : "set"))"
    }
}
