import CacheCore
import Foundation
import Synchronization

/// A hub's side of replication: seals and publishes every clear made through the hub, and applies the clears of the
/// other replicas, in the order the bus delivered them.
///
/// Publishing never waits for the bus (the transport queues). Applying runs on one task of its own; while it
/// applies, ``publishingSuppressed`` is set so that the clears it makes are not published again.
final class ReplicationCoordinator: ReplicationReceiver {
    /// Set while a received clear is applied (and while the hub publishes one message for many local clears): the
    /// hooks then publish nothing, so replicas never echo each other.
    @TaskLocal static var publishingSuppressed = false

    /// Identifies this replica's messages so it can ignore them when the bus delivers them back.
    let replicaID: String
    let secret: ReplicationSecret
    let transport: any ReplicationTransport
    let observer: (@Sendable (ReplicationEvent) -> Void)?
    private let state = Mutex(State())
    private let inbox: AsyncStream<Work>.Continuation
    private let work: AsyncStream<Work>

    private struct State {
        var statistics = ReplicationStatistics()
        /// Session hash → the live session, for the sessions this replica holds. Weak: a session holds the
        /// coordinator (through its parts), and the hub's registry is what keeps sessions alive.
        var sessions: [String: WeakSession] = [:]
        var hub = WeakHub()
        var worker: Task<Void, Never>?
    }

    enum Work: Sendable {
        case apply(ReplicationMessage)
        case dropLocalEntries(ReplicationEvent.DropCause)
    }

    init(configuration: ReplicationConfiguration) {
        var generator = SystemRandomNumberGenerator()
        replicaID = (0..<2).map { _ in String(generator.next() as UInt64, radix: 36) }.joined(separator: "-")
        secret = configuration.secret
        transport = configuration.transport
        observer = configuration.observer
        (work, inbox) = AsyncStream.makeStream(of: Work.self)
    }

    /// Starts applying and connects the transport. Called once, at the end of the hub's init.
    func start(hub: CacheHub) {
        let work = work
        state.withLock { state in
            state.hub = WeakHub(hub: hub)
            state.worker = Task { [self] in
                for await item in work { await perform(item) }
            }
        }
        transport.start(receiver: self)
    }

    func shutdown() async {
        await transport.shutdown()
        inbox.finish()
        let worker = state.withLock { $0.worker }
        await worker?.value
    }

    var statistics: ReplicationStatistics { state.withLock { $0.statistics } }

    // MARK: Sessions

    /// The wire name of a session: the keyed hash of its scope, which is derived from the session id *and* the
    /// principal, so a replica applies a clear only to the session of the same id bound to the same principal.
    func sessionHash(of scope: CacheScope) -> String? {
        guard case .session(let identity) = scope else { return nil }
        return secret.sessionHash(of: identity)
    }

    /// Registers a live session, so clears of other replicas naming it reach it.
    func register(_ session: CacheSession) {
        guard let hash = sessionHash(of: session.scope) else { return }
        state.withLock { $0.sessions[hash] = WeakSession(session: session) }
    }

    /// The handle a session's parts publish through.
    func link(for scope: CacheScope) -> SessionReplicationLink? {
        sessionHash(of: scope).map { SessionReplicationLink(coordinator: self, sessionHash: $0) }
    }

    /// Forgets an ended session (only that object: a newer session of the same scope stays registered).
    func unregister(_ session: CacheSession) {
        guard let hash = sessionHash(of: session.scope) else { return }
        state.withLock { state in
            if state.sessions[hash]?.session === session || state.sessions[hash]?.session == nil {
                state.sessions[hash] = nil
            }
        }
    }

    func session(forHash hash: String) -> CacheSession? { state.withLock { $0.sessions[hash]?.session } }
    var liveSessions: [CacheSession] { state.withLock { $0.sessions.values.compactMap(\.session) } }
    var hub: CacheHub? { state.withLock { $0.hub.hub } }

    // MARK: Publishing

    /// Seals and queues one clear, unless it is itself the application of another replica's clear.
    func publish(_ clear: ReplicatedClear, session: String?) {
        guard !Self.publishingSuppressed else { return }
        let span = InstrumentedOperation(hub?.configuration.instrumentation, replicating: clear)
        defer { span?.end() }
        let message = ReplicationMessage(origin: replicaID, session: session, clear: clear)
        guard let plaintext = try? JSONEncoder().encode(message) else { return }
        transport.publish(secret.seal(Array(plaintext)))
        state.withLock { $0.statistics.published += 1 }
    }

    /// Publishes a clear of the session `scope` belongs to (nothing for the shared scope).
    func publish(_ clear: ReplicatedClear, scope: CacheScope) {
        guard let hash = sessionHash(of: scope) else { return }
        publish(clear, session: hash)
    }

    // MARK: ReplicationReceiver

    func transportDidReceive(_ payload: [UInt8]) {
        guard let plaintext = secret.open(payload),
            let message = try? JSONDecoder().decode(ReplicationMessage.self, from: Data(plaintext))
        else {
            state.withLock { $0.statistics.rejected += 1 }
            observer?(.rejectedMessage)
            return
        }
        guard message.origin != replicaID else {
            state.withLock { $0.statistics.ignoredOwn += 1 }
            return
        }
        inbox.yield(.apply(message))
    }

    func transportDidChange(_ linkState: ReplicationLinkState) {
        state.withLock { state in
            if case .disconnected = linkState, state.statistics.linkState.isUp { state.statistics.disconnections += 1 }
            state.statistics.linkState = linkState
        }
        observer?(.linkChanged(linkState))
        // Subscribed again: whatever was published meanwhile is lost to this replica, so nothing written before
        // now can be trusted. Queued behind every message already received, ahead of every later one.
        if linkState == .subscribed { inbox.yield(.dropLocalEntries(.gap)) }
    }

    func transportDidDropOutgoingMessages() {
        observer?(.droppedOutgoingMessages)
        publish(.dropLocalCaches, session: nil)
    }

    // MARK: Applying

    private func perform(_ item: Work) async {
        await Self.$publishingSuppressed.withValue(true) {
            guard let hub else { return }
            switch item {
            case .apply(let message):
                let applied = await apply(message, to: hub)
                state.withLock { state in
                    if applied { state.statistics.applied += 1 } else { state.statistics.unknownSession += 1 }
                }
            case .dropLocalEntries(let cause):
                let (entries, records) = await dropLocalEntries(of: hub, reason: .custom("replicationGap"))
                if cause == .gap { state.withLock { $0.statistics.gapsRecovered += 1 } }
                observer?(
                    cause == .gap
                        ? .droppedLocalEntriesAfterGap(entries: entries, records: records)
                        : .droppedLocalEntriesOnRequest(entries: entries, records: records))
            }
        }
    }
}

extension ReplicationEvent {
    /// Why a replica dropped its local entries.
    enum DropCause: Sendable {
        case gap
        case request
    }
}

/// The hub, held weakly: the hub owns the coordinator.
struct WeakHub {
    weak var hub: CacheHub?
}

/// A session's handle for publishing its clears, held by its cache manager.
struct SessionReplicationLink: Sendable {
    let coordinator: ReplicationCoordinator
    /// The keyed hash naming the session on the wire.
    let sessionHash: String

    func publish(_ clear: ReplicatedClear) {
        coordinator.publish(clear, session: sessionHash)
    }
}

/// A registered session, held weakly (see the coordinator's session map).
struct WeakSession: Sendable {
    weak var session: CacheSession?
}
