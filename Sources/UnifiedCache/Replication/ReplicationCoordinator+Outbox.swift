import Synchronization

/// The clears a hub made that still wait to be encoded, sealed and handed to the transport.
///
/// A replicated clear costs its caller the local clear and one append here under one lock (and, only when the
/// sealing thread is parked, one wake-up of it): encoding, AES-256-GCM sealing and the transport's hand-off run on
/// the hub's sealing thread (``ReplicationSealingThread``). That thread takes the queue whole and seals in queue
/// order, so counters follow the order the clears were made and every session's clears leave in that order. With
/// batching on (``ReplicationConfiguration/maximumClearsPerMessage`` above 1), consecutive clears of what it took
/// leave as one message, split past the clear cap, the payload cap or ``maximumBatchSpan`` (and, with a
/// ``ReplicationConfiguration/batchingWindow``, the thread waits that long after a wake before it takes the queue);
/// a batch is handed to the transport like any message, so the transport's guarantees (re-sent after a
/// reconnection, or, on overflow, replaced by a drop request) hold for the batch whole. A clear's issued-at is taken
/// when it is queued, not when it is sealed: a receiver judges its age and the sessions it concerns by when the
/// clear happened.
struct ReplicationOutbox {
    /// Clears queued at most; past it the queue is replaced by one request that every replica drop its local
    /// caches (the transport's own overflow rule), so a clear is never silently lost. Reached only when the sealing
    /// thread cannot run at all.
    static let limit = 10_000

    /// How long the sealing thread naps after handing clears over before it looks at the queue again, unless the
    /// configuration says otherwise: clears made meanwhile are appended without waking anybody and leave together
    /// (one wake-up of the thread, the transport and the bus for all of them). It bounds what a clear made during a
    /// run of clears waits before it is sealed; one made after a quiet spell finds the thread parked, wakes it and
    /// is sealed at once.
    static let nap = Duration.microseconds(200)

    struct Queued: Sendable {
        var message: ReplicationMessage
        /// Milliseconds since 1970 on the replication clock, when the clear was made.
        var issuedAt: Int64
        /// The session it concerns, when ``message`` does not name it yet (nil: as the message says).
        var session: Session? = nil
    }

    /// How a queued clear names its session: by the keyed hash already, or by the session's identity, which the
    /// sealing thread hashes (``ReplicationSecret/sessionHash(of:)``) so that the caller does not.
    enum Session: Sendable {
        case hash(String)
        case identity(String)
    }

    /// What the sealing thread is doing, which decides whether a clear wakes it.
    enum Sealer: Equatable {
        /// Sealing, or about to look at the queue: it takes what is queued before it naps or parks.
        case awake
        /// Napping for ``nap`` (or a batching window): it takes what is queued when the nap ends.
        case napping
        /// Parked until a clear wakes it: the clear that finds it so wakes it.
        case parked
    }

    /// Milliseconds of issue time one batch spans at most: a receiver judges a batch's age by its latest clear, so
    /// its earliest is never more than this older than what the age check saw.
    static let maximumBatchSpan: Int64 = 1_000

    var queued: [Queued] = []
    /// Clears queued since the hub started (``ReplicationStatistics/published``), counted under the queue's lock.
    var published = 0
    var sealer = Sealer.awake
    /// The sealing thread was started (a hub that never started has nothing to wait for at shutdown).
    var started = false
    /// Shutting down: the sealing thread empties the queue and finishes instead of napping or parking.
    var closed = false
    /// The sealing thread has finished: a clear made now is sealed and handed over by its caller.
    var finished = false
    /// Shutdowns waiting for the sealing thread to finish.
    var onFinished: [CheckedContinuation<Void, Never>] = []
}

extension ReplicationCoordinator {
    /// Queues `message` (about `session`, when given) for the sealing thread; after shutdown has emptied the
    /// queue, seals and hands it over here.
    func send(_ message: ReplicationMessage, session: ReplicationOutbox.Session? = nil) {
        enqueue(
            CollectionOfOne(ReplicationOutbox.Queued(message: message, issuedAt: nowMilliseconds, session: session)))
    }

    /// Queues `messages` in one step, so the sealing thread takes them together (one batch when batching is on).
    func send(contentsOf messages: [ReplicationMessage]) {
        let now = nowMilliseconds
        enqueue(messages.map { ReplicationOutbox.Queued(message: $0, issuedAt: now) })
    }

    /// The caller's whole share of a replicated clear: one append under the queue's lock, and a wake-up only when
    /// the sealing thread is parked (never while it seals or naps: it takes the queue again before it parks).
    private func enqueue<Items: Collection<ReplicationOutbox.Queued>>(_ items: Items) {
        let (accepted, overflowed, wake) = outbox.withLock { outbox -> (Bool, Bool, Bool) in
            outbox.published += items.count
            guard !outbox.finished else { return (false, false, false) }
            var overflowed = false
            if outbox.queued.count + items.count > ReplicationOutbox.limit {
                outbox.queued = [
                    ReplicationOutbox.Queued(
                        message: ReplicationMessage(session: nil, clear: .dropLocalCaches),
                        issuedAt: items.first?.issuedAt ?? 0)
                ]
                overflowed = true
            }
            outbox.queued.append(contentsOf: items)
            guard outbox.sealer == .parked else { return (true, overflowed, false) }
            outbox.sealer = .awake
            return (true, overflowed, true)
        }
        if wake { sealingThread.wakeFromPark() }
        if overflowed { observer?(.droppedOutgoingMessages) }
        if !accepted { seal(Array(items)) }
    }

    /// Encodes and seals `queued` in order and hands each message to the transport: each clear alone (format v3),
    /// or, with batching on, runs of consecutive clears as one batch (format v4) within the caps.
    func seal(_ queued: [ReplicationOutbox.Queued]) {
        guard maximumClearsPerMessage > 1, queued.count > 1 else {
            for item in queued { sealOne(ReplicationMessageCodec.encode(named(item)), issuedAt: item.issuedAt) }
            return
        }
        // What a batch may hold so that the sealed message stays within what receivers accept.
        let budget =
            rules.maximumPayloadBytes - ReplicationEnvelope.minimumLength - ReplicationBatchCodec.headerLength
        var batch: [(plaintext: [UInt8], issuedAt: Int64)] = []
        var bytes = 0
        var (earliest, latest) = (Int64.max, Int64.min)
        for item in queued {
            let plaintext = ReplicationMessageCodec.encode(named(item))
            let size = ReplicationBatchCodec.perClearOverhead + plaintext.count
            let span = max(latest, item.issuedAt) - min(earliest, item.issuedAt)
            if !batch.isEmpty,
                batch.count >= maximumClearsPerMessage || bytes + size > budget
                    || span > ReplicationOutbox.maximumBatchSpan
            {
                sealBatch(batch)
                batch.removeAll(keepingCapacity: true)
                (bytes, earliest, latest) = (0, .max, .min)
            }
            batch.append((plaintext, item.issuedAt))
            bytes += size
            (earliest, latest) = (min(earliest, item.issuedAt), max(latest, item.issuedAt))
        }
        sealBatch(batch)
    }

    /// The queued clear's message, naming its session by the keyed hash.
    private func named(_ item: ReplicationOutbox.Queued) -> ReplicationMessage {
        var message = item.message
        switch item.session {
        case .hash(let hash): message.session = hash
        case .identity(let identity): message.session = secret.sessionHash(of: identity)
        case nil: break
        }
        return message
    }

    /// Seals one run of clears: alone in format v3 when it is one, else as a v4 batch stamped with its latest clear.
    private func sealBatch(_ batch: [(plaintext: [UInt8], issuedAt: Int64)]) {
        guard batch.count > 1 else {
            if let only = batch.first { sealOne(only.plaintext, issuedAt: only.issuedAt) }
            return
        }
        let latest = batch.map(\.issuedAt).max() ?? 0
        let items = batch.map {
            ReplicationBatchCodec.Item(plaintext: $0.plaintext, ageOffset: UInt32(clamping: latest - $0.issuedAt))
        }
        let transport = transport
        messagesSent.add(1, ordering: .relaxed)
        sealer.seal(ReplicationBatchCodec.encode(items), issuedAt: latest, version: ReplicationEnvelope.batchVersion) {
            transport.publish($0)
        }
    }

    private func sealOne(_ plaintext: [UInt8], issuedAt: Int64) {
        let transport = transport
        messagesSent.add(1, ordering: .relaxed)
        sealer.seal(plaintext, issuedAt: issuedAt) { transport.publish($0) }
    }

    /// Clears queued since the hub started.
    var publishedCount: Int { outbox.withLock { $0.published } }
}
