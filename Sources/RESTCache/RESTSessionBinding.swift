import CurlHTTP
import Synchronization

/// What a session lends the REST services made over it: the credentials in force, whether it ended, and a look at
/// every successful upstream answer.
///
/// A BFF holds a session per signed-in user, a million per replica at the top. Its services hold no state of their
/// own beyond this binding (the session itself, in the facade), so ``APIService/init(shared:cache:binding:secondLevel:)``
/// makes a service as a view on each access instead of keeping one per session: a session that is asked for its
/// service a thousand times keeps no service at all.
public protocol RESTSessionBinding: AnyObject, Sendable {
    /// The credentials the next upstream request carries (read when it is sent).
    var credentials: UpstreamCredentials { get }
    /// The headers of ``credentials`` alone: what a cached answer that varies on them is looked up by, read on a
    /// cache hit without making anything a request would need (such as a cookie jar).
    var credentialHeaders: CurlHTTPClient.Headers { get }
    /// Replaces the credentials later requests carry (a token refresh through a service).
    func updateCredentials(_ credentials: UpstreamCredentials)
    /// Whether the session ended: its services then refuse work (see ``APIService/close()``).
    var isClosed: Bool { get }
    /// Ends the services' work for good (``APIService/close()`` on any of them).
    func close()
    /// Sees every successful (2xx) upstream answer of the session's services, before it is stored.
    func inspect(method: CurlHTTPClient.Method, path: String, response: CurlHTTPClient.Response)
}

extension RESTSessionBinding {
    public var credentialHeaders: CurlHTTPClient.Headers { credentials.headers }
}

/// The binding of a service made on its own (not over a session): its credentials, its closed flag and the
/// inspector it was given.
final class OwnRESTBinding: RESTSessionBinding {
    private let current: Mutex<UpstreamCredentials>
    private let closed = Atomic<Bool>(false)
    private let inspector: APIService.ResponseInspector?

    init(credentials: UpstreamCredentials, inspector: APIService.ResponseInspector?) {
        self.current = Mutex(credentials)
        self.inspector = inspector
    }

    var credentials: UpstreamCredentials { current.withLock { $0 } }

    func updateCredentials(_ credentials: UpstreamCredentials) {
        current.withLock { $0 = credentials }
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    func close() {
        closed.store(true, ordering: .releasing)
    }

    func inspect(method: CurlHTTPClient.Method, path: String, response: CurlHTTPClient.Response) {
        inspector?(method, path, response)
    }
}
