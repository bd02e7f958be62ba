import CacheCore
import Foundation
import Synchronization

/// A hub's side of replication: seals and publishes every clear made through the hub, and applies the clears of the
/// other replicas, in the order the bus delivered them.
///
/// Publishing never waits for the bus, nor for sealing: a clear is queued (``ReplicationOutbox``) and a thread of
/// its own (``ReplicationSealingThread``) names its session, seals it and hands it to the transport, which queues
/// too. Applying runs on one task of its own; while it applies, ``publishingSuppressed`` is set so that the clears it
/// makes are not published again. What arrives is checked in `transportDidReceive(_:)` (size, seal, age, replay,
/// and that every clear decodes) before it is queued for applying; a message whose clears all name sessions not held
/// here is counted there instead, when no second level needs their marks (see ``ReceivedClears``).
final class ReplicationCoordinator: ReplicationReceiver {
    /// Set while a received clear is applied (and while the hub publishes one message for many local clears): the
    /// hooks then publish nothing, so replicas never echo each other.
    @TaskLocal static var publishingSuppressed = false

    let secret: ReplicationSecret
    /// Seals under this replica's sender id and counter; opens the other replicas' messages.
    let sealer: ReplicationSealer
    let transport: any ReplicationTransport
    let observer: (@Sendable (ReplicationEvent) -> Void)?
    let rules: ReplayRules
    let clock: any CacheClock
    /// The hub's instrumentation (spans and timers of replicated clears).
    let instrumentation: (any CacheInstrumentation)?
    /// ``ReplicationConfiguration/maximumClearsPerMessage``: 1 sends each clear alone.
    let maximumClearsPerMessage: Int
    /// ``ReplicationConfiguration/batchingWindow`` when batching is on, else zero.
    let batchingWindow: Duration
    /// How long the sealing thread naps after handing clears over (``ReplicationOutbox/nap`` unless configured).
    let sealingNap: Duration
    /// Seals what the outbox holds, off the callers' path.
    let sealingThread = ReplicationSealingThread()
    let state = Mutex(State())
    /// Sealed messages handed to the transport (``ReplicationStatistics/messagesSent``).
    let messagesSent = Atomic<Int>(0)
    /// Clears waiting to be sealed, in the order they were made (see ``ReplicationOutbox``).
    let outbox = Mutex(ReplicationOutbox())
    private let inbox: AsyncStream<Work>.Continuation
    private let work: AsyncStream<Work>

    struct State {
        var statistics = ReplicationStatistics()
        /// Session hash (under every key of the ring) → the live session. Weak: a session holds the coordinator
        /// (through its parts), and the hub's registry is what keeps sessions alive.
        var sessions: [SessionWireName: RegisteredSession] = [:]
        /// Received clears found to concern no session here from their session name alone, never decoded (see
        /// ``ReceivedClears``); counted in ``ReplicationStatistics/unknownSession`` too.
        var undecodedUnheld = 0
        /// Whether the hub has a second level, whose marks a clear of a session not held here still owes (see
        /// `rememberForUnheldSession`): such clears are then decoded.
        var decodesUnheld = false
        /// Each sender's anti-replay window, and when it last sent (see `AntiReplayWindows`).
        var replayWindows = AntiReplayWindows()
        /// Second-level clear marks owed to sessions this replica does not hold yet (nil without a second level).
        var pendingMarks: PendingClearMarks?
        var hub = WeakHub()
        var worker: Task<Void, Never>?
    }

    enum Work: Sendable {
        /// The clears of one received message, in order: one work item (one hop to the applying task) per message.
        case apply(ReceivedClears)
        case dropLocalEntries(ReplicationEvent.DropCause)
        case publishDropRequest
    }

    /// `instrumentation`: the hub's, given here so a publish reads a constant (reading it through the hub copied the
    /// hub's whole configuration; keeping it in the state took a lock) on the caller's path.
    init(configuration: ReplicationConfiguration, instrumentation: (any CacheInstrumentation)? = nil) {
        self.instrumentation = instrumentation
        secret = configuration.secret
        sealer = ReplicationSealer(secret: configuration.secret)
        transport = configuration.transport
        observer = configuration.observer
        rules = ReplayRules(configuration)
        clock = configuration.clock
        maximumClearsPerMessage = configuration.maximumClearsPerMessage
        batchingWindow = configuration.maximumClearsPerMessage > 1 ? configuration.batchingWindow : .zero
        sealingNap = configuration.sealingNap
        (work, inbox) = AsyncStream.makeStream(of: Work.self)
    }

    /// Starts applying and connects the transport. Called once, at the end of the hub's init.
    func start(hub: CacheHub) {
        let work = work
        state.withLock { state in
            state.hub = WeakHub(hub: hub)
            state.decodesUnheld = hub.secondLevel != nil
            state.pendingMarks = hub.secondLevel.map {
                PendingClearMarks(maximumAge: $0.configuration.maximumTimeToLive)
            }
            state.worker = Task { [self] in
                for await item in work { await perform(item) }
            }
        }
        startSealing()
        transport.start(receiver: self)
    }

    /// Hands every queued clear to the transport, then stops the transport (which sends what it holds while the
    /// link is up) and the applying task.
    func shutdown() async {
        await finishSealing()
        await transport.shutdown()
        inbox.finish()
        let worker = state.withLock { $0.worker }
        await worker?.value
    }

    var statistics: ReplicationStatistics {
        var statistics = state.withLock { $0.statistics }
        statistics.published = publishedCount
        statistics.messagesSent = messagesSent.load(ordering: .relaxed)
        return statistics
    }

    /// Received clears of sessions not held here that were counted without being decoded (see ``ReceivedClears``).
    var undecodedUnheldClears: Int { state.withLock { $0.undecodedUnheld } }

    /// Now on the replication clock, in milliseconds since 1970.
    var nowMilliseconds: Int64 { ReplayRules.milliseconds(since1970: clock.wallClockNow()) }

    // MARK: Sessions

    /// The wire name of a session: the keyed hash of its scope, which is derived from the session id *and* the
    /// principal, so a replica applies a clear only to the session of the same id bound to the same principal.
    func sessionHash(of scope: CacheScope) -> String? {
        guard case .session(let identity) = scope else { return nil }
        return secret.sessionHash(of: identity)
    }

    /// Registers a live session under its name for every key of the ring (a sender mid-rotation names it under its
    /// own current key), with the time it was created here. Second-level clears of it that arrived while this replica
    /// did not hold it (see ``PendingClearMarks``) become its namespace's clear marks; when none are owed, as almost
    /// always, that costs one emptiness check under the lock taken anyway.
    func register(_ session: CacheSession) {
        guard case .session(let identity) = session.scope else { return }
        let created = nowMilliseconds
        let hashes = secret.sessionHashes(of: identity)
        let owed = state.withLock { state -> (front: SecondLevelFront, taken: PendingClearMarks.Taken)? in
            for (index, hash) in hashes.enumerated() {
                guard let name = SessionWireName(hash) else { continue }
                state.sessions[name] = RegisteredSession(session: session, createdAt: created, isPrimary: index == 0)
            }
            guard state.pendingMarks?.isEmpty == false, let front = state.hub.hub?.secondLevel,
                let taken = state.pendingMarks?.take(hashes, now: front.wallClockNow())
            else { return nil }
            return (front, taken)
        }
        guard let owed else { return }
        if let everything = owed.taken.everything { owed.front.marks.markEverything(everything) }
        if let entry = owed.taken.owed { owed.front.adopt(entry, for: session.scope) }
    }

    /// The handle a session's parts publish through (made with each view of a session: it computes nothing).
    func link(for scope: CacheScope) -> SessionReplicationLink? {
        guard case .session(let identity) = scope else { return nil }
        return SessionReplicationLink(coordinator: self, identity: identity)
    }

    /// Forgets an ended session (only that object: a newer session of the same scope stays registered).
    func unregister(_ session: CacheSession) {
        guard case .session(let identity) = session.scope else { return }
        let names = secret.sessionHashes(of: identity).compactMap(SessionWireName.init)
        state.withLock { state in
            for name in names where state.sessions[name]?.session === session || state.sessions[name]?.session == nil {
                state.sessions[name] = nil
            }
        }
    }

    func registered(forHash hash: String) -> RegisteredSession? {
        guard let name = SessionWireName(hash) else { return nil }
        return state.withLock { $0.sessions[name] }
    }

    /// Whether the session named `name` is held here and live, as ``apply(_:issuedAt:to:)`` tells before applying.
    func holds(_ name: SessionWireName?, in hub: CacheHub) -> Bool {
        guard let name, let registered = state.withLock({ $0.sessions[name] }), let session = registered.session
        else { return false }
        return hub.isLive(session)
    }
    var liveSessions: [CacheSession] { registeredSessions.compactMap(\.session) }
    /// Every registered session once (under its current-key name).
    var registeredSessions: [RegisteredSession] { state.withLock { $0.sessions.values.filter(\.isPrimary) } }
    var hub: CacheHub? { state.withLock { $0.hub.hub } }

    // MARK: Publishing

    /// Queues one clear for sealing, unless it is itself the application of another replica's clear. `session` is
    /// the wire name of the session it concerns (nil for every session).
    func publish(_ clear: ReplicatedClear, session: String?) {
        publish(clear, naming: session.map(ReplicationOutbox.Session.hash))
    }

    /// Publishes a clear of the session `scope` belongs to (nothing for the shared scope).
    func publish(_ clear: ReplicatedClear, scope: CacheScope) {
        guard case .session(let identity) = scope else { return }
        publish(clear, naming: .identity(identity))
    }

    /// Queues one clear; the keyed hash that names its session on the wire is computed on the sealing thread, off
    /// the caller's path. The clear is built only when it is to be published: a clear applied from another replica
    /// (which publishes nothing) does not spell its reason's wire name for nothing.
    func publish(_ makeClear: @autoclosure () -> ReplicatedClear, naming session: ReplicationOutbox.Session?) {
        guard !Self.publishingSuppressed else { return }
        let clear = makeClear()
        let span = InstrumentedOperation(
            instrumentation, replicating: clear, over: transport)
        defer { span?.end() }
        send(ReplicationMessage(session: nil, clear: clear), session: session)
    }

    // MARK: ReplicationReceiver

    func transportDidReceive(_ payload: [UInt8]) {
        switch admit(payload) {
        case .accepted(let received):
            if !passOver(received) { inbox.yield(.apply(received)) }
        case .own: state.withLock { $0.statistics.ignoredOwn += 1 }
        case .rejected(let reason): reject(reason)
        }
    }

    func reject(_ reason: ReplicationRejection) {
        state.withLock { $0.statistics.countRejection(reason) }
        observer?(.rejectedMessage(reason))
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
        // Not sent from here: the transport calls this from inside a publish, which holds the sealer's counter.
        inbox.yield(.publishDropRequest)
    }

    // MARK: Applying

    /// Counts a message here, on the transport's thread, when every clear in it names a session not held here and
    /// no second level needs their marks: applying them would change nothing, so they take no hop to the applying
    /// task and are never decoded. False (the message is to be queued) otherwise, and whenever a clear names a
    /// session registered here (the applying task then tells whether it is still live). One lock for the whole
    /// message; a session registered meanwhile is registered after the message arrived, as if the applying task had
    /// been idle.
    private func passOver(_ received: ReceivedClears) -> Bool {
        state.withLock { state in
            guard state.hub.hub != nil, !state.decodesUnheld else { return false }
            for clear in received.clears {
                guard clear.session != nil else { return false }
                if let name = received.sessionName(clear), state.sessions[name]?.session != nil { return false }
            }
            state.statistics.unknownSession += received.clears.count
            state.undecodedUnheld += received.clears.count
            return true
        }
    }

    private func perform(_ item: Work) async {
        if case .publishDropRequest = item {
            send(ReplicationMessage(session: nil, clear: .dropLocalCaches))
            return
        }
        await Self.$publishingSuppressed.withValue(true) {
            guard let hub else { return }
            switch item {
            case .apply(let received):
                var (applied, unknownSession, undecoded) = (0, 0, 0)
                // With a second level, a clear of a session not held here still leaves marks (see
                // `rememberForUnheldSession`), which need the clear itself; without one it changes nothing.
                let decodesUnheld = hub.secondLevel != nil
                for clear in received.clears {
                    if !decodesUnheld, clear.session != nil, !holds(received.sessionName(clear), in: hub) {
                        (unknownSession, undecoded) = (unknownSession + 1, undecoded + 1)
                        continue
                    }
                    guard let message = received.message(clear) else { continue }
                    switch await apply(message, issuedAt: clear.issuedAt, to: hub) {
                    case .applied: applied += 1
                    case .unknownSession: unknownSession += 1
                    case .predatesSession: reject(.predatesSession)
                    }
                }
                state.withLock { state in
                    state.statistics.applied += applied
                    state.statistics.unknownSession += unknownSession
                    state.undecodedUnheld += undecoded
                }
            case .dropLocalEntries(let cause):
                let (entries, records) = await dropLocalEntries(of: hub, reason: .custom("replicationGap"))
                if cause == .gap { state.withLock { $0.statistics.gapsRecovered += 1 } }
                observer?(
                    cause == .gap
                        ? .droppedLocalEntriesAfterGap(entries: entries, records: records)
                        : .droppedLocalEntriesOnRequest(entries: entries, records: records))
            case .publishDropRequest:
                break
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
    /// The session's identity (its scope's); the sealing thread turns it into the keyed hash that names the session
    /// on the wire, so a clear's caller pays for no HMAC.
    let identity: String

    /// Publishes the clear `makeClear` builds, unless this is the application of another replica's clear (then
    /// nothing is built).
    func publish(_ makeClear: @autoclosure () -> ReplicatedClear) {
        coordinator.publish(makeClear(), naming: .identity(identity))
    }
}

/// A registered session, held weakly (see the coordinator's session map), and when it was created here.
struct RegisteredSession: Sendable {
    weak var session: CacheSession?
    /// Milliseconds since 1970 on the replication clock.
    var createdAt: Int64
    /// Registered under the current key's hash (each session has one such entry, and one per other ring key).
    var isPrimary: Bool
}
