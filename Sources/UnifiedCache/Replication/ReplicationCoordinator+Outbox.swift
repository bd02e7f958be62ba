import Synchronization

/// The clears a hub made that still wait to be encoded, sealed and handed to the transport.
///
/// A replicated clear costs its caller the local clear and one append here (and, when the sealing task is parked,
/// one resume): encoding, AES-256-GCM sealing and the transport's hand-off run on one task of their own. That task
/// takes the queue whole and seals in queue order, so counters follow the order the clears were made and every
/// session's clears leave in that order. A clear's issued-at is taken when it is queued, not when it is sealed: a
/// receiver judges its age and the sessions it concerns by when the clear happened.
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

    var queued: [Queued] = []
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
        let queued = ReplicationOutbox.Queued(message: message, issuedAt: nowMilliseconds)
        let (accepted, overflowed, wake) = outbox.withLock {
            outbox -> (Bool, Bool, CheckedContinuation<Void, Never>?) in
            guard !outbox.finished else { return (false, false, nil) }
            var overflowed = false
            if outbox.queued.count >= ReplicationOutbox.limit {
                outbox.queued = [
                    ReplicationOutbox.Queued(
                        message: ReplicationMessage(session: nil, clear: .dropLocalCaches), issuedAt: queued.issuedAt)
                ]
                overflowed = true
            }
            outbox.queued.append(queued)
            defer { outbox.parked = nil }
            return (true, overflowed, outbox.parked)
        }
        state.withLock { $0.statistics.published += 1 }
        wake?.resume()
        if overflowed { observer?(.droppedOutgoingMessages) }
        if !accepted { seal([queued]) }
    }

    /// Encodes and seals `batch` in order, each under the next counter, and hands each to the transport.
    private func seal(_ batch: [ReplicationOutbox.Queued]) {
        let transport = transport
        for item in batch {
            sealer.seal(ReplicationMessageCodec.encode(item.message), issuedAt: item.issuedAt) { transport.publish($0) }
        }
    }

    /// The sealing task's body: seals every batch queued until shutdown closes the queue and it is empty.
    func drainOutbox() async {
        while let batch = await nextBatch() { seal(batch) }
    }

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
