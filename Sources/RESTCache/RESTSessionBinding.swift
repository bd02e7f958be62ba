import CurlHTTP

/// What a session lends the REST services made over it: the credentials in force and whether it ended (its
/// `UpstreamSessionBinding` part, from CurlHTTP, shared with GraphQL clients), and a look at every successful
/// upstream answer.
///
/// A BFF holds a session per signed-in user, a million per replica at the top. Its services hold no state of their
/// own beyond this binding (the session itself, in the facade), so ``APIService/init(shared:cache:binding:secondLevel:)``
/// makes a service as a view on each access instead of keeping one per session: a session that is asked for its
/// service a thousand times keeps no service at all.
public protocol RESTSessionBinding: UpstreamSessionBinding {
    /// The headers of `credentials` alone: what a cached answer that varies on them is looked up by, read on a
    /// cache hit without making anything a request would need (such as a cookie jar).
    var credentialHeaders: CurlHTTPClient.Headers { get }
    /// Sees every successful (2xx) upstream answer of the session's services, before it is stored.
    func inspect(method: CurlHTTPClient.Method, path: String, response: CurlHTTPClient.Response)
}

extension RESTSessionBinding {
    public var credentialHeaders: CurlHTTPClient.Headers { credentials.headers }
}

/// The binding of a service made on its own (not over a session): the standalone lifecycle (credentials, closed
/// flag) and the inspector it was given.
final class OwnRESTBinding: RESTSessionBinding, StandaloneBinding {
    let lifecycle: StandaloneLifecycle
    private let inspector: APIService.ResponseInspector?

    init(credentials: UpstreamCredentials, inspector: APIService.ResponseInspector?) {
        self.lifecycle = StandaloneLifecycle(credentials: credentials)
        self.inspector = inspector
    }

    func inspect(method: CurlHTTPClient.Method, path: String, response: CurlHTTPClient.Response) {
        inspector?(method, path, response)
    }
}
