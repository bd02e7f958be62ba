import Synchronization

/// What a session lends every client made over it, whatever the protocol it speaks: the credentials in force and
/// whether the session ended.
///
/// REST services and GraphQL clients are views over a session (a BFF holds a million at the top, and keeps no client
/// per session). Both doors read the same two things from it, so they are declared once, here, below both;
/// RESTCache's `RESTSessionBinding` and GraphQLCache's `GraphQLSessionBinding` refine it with what their door alone
/// needs (a look at every answer; the GraphQL client state), and a session that serves both conforms once.
public protocol UpstreamSessionBinding: AnyObject, Sendable {
    /// The credentials the next upstream call carries (read when it is sent).
    var credentials: UpstreamCredentials { get }
    /// Replaces the credentials later calls carry (a token refresh through a client).
    func updateCredentials(_ credentials: UpstreamCredentials)
    /// Whether the session ended: its clients then refuse work (their `close()`).
    var isClosed: Bool { get }
    /// Ends the clients' work for good (`close()` on any of them).
    func close()
}

/// The credentials and closed flag of a client made on its own (not over a session): the lifecycle every door's
/// standalone binding keeps, held once.
package final class StandaloneLifecycle: Sendable {
    private let current: Mutex<UpstreamCredentials>
    private let closed = Atomic<Bool>(false)

    package init(credentials: UpstreamCredentials) {
        current = Mutex(credentials)
    }

    package var credentials: UpstreamCredentials { current.withLock { $0 } }

    package func updateCredentials(_ credentials: UpstreamCredentials) {
        current.withLock { $0 = credentials }
    }

    package var isClosed: Bool { closed.load(ordering: .acquiring) }

    package func close() {
        closed.store(true, ordering: .releasing)
    }
}

/// A binding whose credentials and closed flag are a ``StandaloneLifecycle``: a door's standalone binding conforms
/// and adds only what its door needs.
package protocol StandaloneBinding: UpstreamSessionBinding {
    var lifecycle: StandaloneLifecycle { get }
}

extension StandaloneBinding {
    package var credentials: UpstreamCredentials { lifecycle.credentials }

    package func updateCredentials(_ credentials: UpstreamCredentials) {
        lifecycle.updateCredentials(credentials)
    }

    package var isClosed: Bool { lifecycle.isClosed }

    package func close() {
        lifecycle.close()
    }
}
