import CacheCore
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The hub's sealing thread: a thread of its own (not one of the cooperative pool's), under `SCHED_BATCH` on Linux,
/// that takes what the outbox holds, seals it and hands it to the transport.
///
/// Waking it never preempts the clear that woke it: a batch thread that wakes waits for the next scheduling point
/// instead of taking the caller's time slice, so on a machine of few cores the caller finishes its clear first.
/// A caller wakes it only when it is parked (``ReplicationOutbox/Sealer/parked``); while it seals or naps, clears are
/// appended and nobody is woken.
///
/// After handing a batch over, the thread naps for the outbox's ``ReplicationOutbox/nap`` before it looks again:
/// clears made meanwhile are taken together at the end of the nap, without a wake-up each (one wake-up of the
/// thread, of the transport and of the bus for the lot). A look that finds nothing parks it until the next clear.
/// So a clear waits at most one nap before it is sealed; a clear made after a quiet spell wakes the thread and is
/// sealed at once.
final class ReplicationSealingThread: Sendable {
    /// Signalled by the one caller that finds the thread parked, and by shutdown; never counts above what one wait
    /// takes, except after shutdown (when nobody waits any more).
    private let signal = DispatchSemaphore(value: 0)
    /// Times a caller woke the thread (for tests: a burst made while it is awake wakes it at most once).
    let wakes = Atomic<Int>(0)

    /// Starts `body` on a new thread named `name`.
    func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            BatchScheduling.yieldToRequests()
            body()
        }
        thread.name = name
        thread.start()
    }

    /// Wakes the thread from a park (caller side; the caller has moved the outbox's sealer state off `parked`).
    func wakeFromPark() {
        wakes.add(1, ordering: .relaxed)
        signal.signal()
    }

    /// Cuts a nap, a batching window or a park short (shutdown).
    func interrupt() {
        signal.signal()
    }

    /// Sleeps until woken (park).
    func park() {
        signal.wait()
    }

    /// Sleeps `duration` unless interrupted first (nap, batching window).
    func nap(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        // Naps and windows are at most seconds long; the clamp only keeps the arithmetic in range.
        let nanoseconds = min(max(seconds, 0), 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
        _ = signal.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
    }
}
