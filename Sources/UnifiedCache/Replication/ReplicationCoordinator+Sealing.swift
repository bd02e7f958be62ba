import Synchronization

/// The sealing thread's side of the outbox: take the queue whole, seal it in order, nap, park, and finish at
/// shutdown once the queue is empty.
extension ReplicationCoordinator {
    /// What the sealing thread does next, decided under the outbox's lock.
    private enum SealingStep {
        case seal([ReplicationOutbox.Queued])
        case nap
        case park
        case finish([CheckedContinuation<Void, Never>])
    }

    /// Starts the sealing thread (once, from `start(hub:)`). It holds the coordinator until `shutdown()` ends it, as
    /// the transport's thread does: a hub that replicates is shut down, not just released.
    func startSealing() {
        let first = outbox.withLock { outbox in
            defer { outbox.started = true }
            return !outbox.started
        }
        guard first else { return }
        sealingThread.start(name: "UnifiedCache replication sealer") { [self] in runSealing() }
    }

    /// The sealing thread's body: seals what is queued, naps so that the clears made meanwhile leave together,
    /// parks when a look after a nap finds nothing, and returns once shutdown closed the queue and it is empty.
    private func runSealing() {
        var mayNap = false
        while true {
            let step = outbox.withLock { outbox -> SealingStep in
                if !outbox.queued.isEmpty {
                    defer { outbox.queued.removeAll(keepingCapacity: true) }
                    outbox.sealer = .awake
                    return .seal(outbox.queued)
                }
                if outbox.closed {
                    outbox.finished = true
                    defer { outbox.onFinished.removeAll() }
                    return .finish(outbox.onFinished)
                }
                outbox.sealer = mayNap ? .napping : .parked
                return mayNap ? .nap : .park
            }
            switch step {
            case .seal(let queued):
                seal(queued)
                mayNap = sealingNap > .zero
            case .nap:
                sealingThread.nap(sealingNap)
                mayNap = false
            case .park:
                sealingThread.park()
                // Woken by a clear: with a batching window, the clears made meanwhile join it (they wake nobody:
                // the thread is marked awake by the clear that woke it).
                if batchingWindow > .zero, !outbox.withLock({ $0.closed }) { sealingThread.nap(batchingWindow) }
            case .finish(let waiting):
                for shutdown in waiting { shutdown.resume() }
                return
            }
        }
    }

    /// Closes the queue, cuts the sealing thread's nap or park short, and returns once it has handed over every
    /// queued clear and finished (at once when it never started).
    func finishSealing() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = outbox.withLock { outbox -> Bool in
                outbox.closed = true
                if !outbox.started { outbox.finished = true }
                guard !outbox.finished else { return true }
                outbox.onFinished.append(continuation)
                return false
            }
            if done { continuation.resume() } else { sealingThread.interrupt() }
        }
    }
}
