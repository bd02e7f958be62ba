import Synchronization

/// The clears a hub made that still wait to be encoded, sealed and handed to the transport.
///
/// A replicated clear costs its caller the local clear and one append here under one lock (and, only when the
/// sealing task is parked, one resume): encoding, AES-256-GCM sealing and the transport's hand-off run on one task
/// of their own. That task takes the queue whole and seals in queue order, so counters follow the order the clears
/// were made and every session's clears leave in that order. With batching on
/// (``ReplicationConfiguration/maximumClearsPerMessage`` above 1), consecutive clears of what it took leave as one
/// message, split past the clear cap, the payload cap or ``maximumBatchSpan`` (and, with a
/// ``ReplicationConfiguration/batchingWindow``, the task waits that long after a wake before it takes the queue); a batch is handed to the transport
/// like any message, so the transport's guarantees (re-sent after a reconnection, or, on overflow, replaced by a
/// drop request) hold for the batch whole. A clear's issued-at is taken when it is queued, not when it is sealed:
/// a receiver judges its age and the sessions it concerns by when the clear happened.
struct ReplicationOutbox {
    /// Clears queued at most; past it the queue is replaced by one request that every replica drop its local
    /// caches (the transport's own overflow rule), so a clear is never silently lost. Reached only when the sealing
    /// task cannot run at all.
    static let limit = 10_000

    struct Queued: Sendable {
        var message: ReplicationMessage
        /// Milliseconds since 1970 on the replication clock, when the clear was made.
        var issuedAt: Int64
    }

    /// Milliseconds of issue time one batch spans at most: a receiver judges a batch's age by its latest clear, so
    /// its earliest is never more than this older than what the age check saw.
    static let maximumBatchSpan: Int64 = 1_000

    var queued: [Queued] = []
    /// Clears queued since the hub started (``ReplicationStatistics/published``), counted under the queue's lock.
    var published = 0
    /// The sealing task, parked on an empty queue.
    var parked: CheckedContinuation<Void, Never>?
    /// Shutting down: the sealing task empties the queue and finishes instead of parking.
    var closed = false
    /// The sealing task has finished: a clear made now is sealed and handed over by its caller.
    var finished = false
}

extension ReplicationCoordinator {
    /// Queues `message` for the sealing task; after shutdown has emptied the queue, seals and hands it over here.
    func send(_ message: ReplicationMessage) {
        enqueue(CollectionOfOne(ReplicationOutbox.Queued(message: message, issuedAt: nowMilliseconds)))
    }

    /// Queues `messages` in one step, so the sealing task takes them together (one batch when batching is on).
    func send(contentsOf messages: [ReplicationMessage]) {
        let now = nowMilliseconds
        enqueue(messages.map { ReplicationOutbox.Queued(message: $0, issuedAt: now) })
    }

    /// The caller's whole share of a replicated clear: one append under the queue's lock, and a resume only when
    /// the sealing task is parked (never when it is awake: it takes the queue again before it parks).
    private func enqueue<Items: Collection<ReplicationOutbox.Queued>>(_ items: Items) {
        let (accepted, overflowed, wake) = outbox.withLock {
            outbox -> (Bool, Bool, CheckedContinuation<Void, Never>?) in
            outbox.published += items.count
            guard !outbox.finished else { return (false, false, nil) }
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
            guard let parked = outbox.parked else { return (true, overflowed, nil) }
            outbox.parked = nil
            return (true, overflowed, parked)
        }
        wake?.resume()
        if overflowed { observer?(.droppedOutgoingMessages) }
        if !accepted { seal(Array(items)) }
    }

    /// Encodes and seals `queued` in order and hands each message to the transport: each clear alone (format v3),
    /// or, with batching on, runs of consecutive clears as one batch (format v4) within the caps.
    private func seal(_ queued: [ReplicationOutbox.Queued]) {
        guard maximumClearsPerMessage > 1, queued.count > 1 else {
            for item in queued { sealOne(ReplicationMessageCodec.encode(item.message), issuedAt: item.issuedAt) }
            return
        }
        // What a batch may hold so that the sealed message stays within what receivers accept.
        let budget =
            rules.maximumPayloadBytes - ReplicationEnvelope.minimumLength - ReplicationBatchCodec.headerLength
        var batch: [(plaintext: [UInt8], issuedAt: Int64)] = []
        var bytes = 0
        var (earliest, latest) = (Int64.max, Int64.min)
        for item in queued {
            let plaintext = ReplicationMessageCodec.encode(item.message)
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

    /// The sealing task's body: seals every batch queued until shutdown closes the queue and it is empty.
    func drainOutbox() async {
        while let batch = await nextBatch() { seal(batch) }
    }

    /// Clears queued since the hub started.
    var publishedCount: Int { outbox.withLock { $0.published } }

    /// The whole queue once it is not empty; nil (and the queue marked finished) once it is closed and empty.
    private func nextBatch() async -> [ReplicationOutbox.Queued]? {
        while true {
            let taken = outbox.withLock { outbox -> [ReplicationOutbox.Queued]?? in
                if !outbox.queued.isEmpty {
                    defer { outbox.queued.removeAll(keepingCapacity: true) }
                    return .some(outbox.queued)
                }
                guard outbox.closed else { return nil }
                outbox.finished = true
                return .some(nil)
            }
            if let taken { return taken }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = outbox.withLock { outbox in
                    guard outbox.queued.isEmpty, !outbox.closed else { return true }
                    outbox.parked = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            // Woken by a clear: with a batching window, the clears made meanwhile join it (callers wake nobody
            // while this task waits, since it is not parked).
            if batchingWindow > .zero, !outbox.withLock({ $0.closed }) {
                try? await Task.sleep(for: batchingWindow)
            }
        }
    }

    /// Closes the queue and wakes the sealing task, which hands over what is queued and finishes.
    func closeOutbox() {
        let parked = outbox.withLock { outbox -> CheckedContinuation<Void, Never>? in
            outbox.closed = true
            defer { outbox.parked = nil }
            return outbox.parked
        }
        parked?.resume()
    }
}
