import CacheCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thread that owns the two Redis connections of a replica (SUBSCRIBE needs a connection of its own) and drives
/// them with poll(): it publishes queued payloads, delivers messages, checks health with PING, and reconnects with
/// backoff. Swift tasks never wait on Redis: they only append to ``Shared/outbox`` and write a byte to a pipe.
final class RedisPubSubLoop: RedisLoopStopping, Sendable {
    /// Times in a row Redis may refuse the same first payload (re-sent after each reconnection) before it is given up
    /// and every replica is asked to drop its local caches instead: a clear is re-sent or turned into a drop
    /// request, never lost.
    static let refusalLimit = 3

    struct Shared: RedisLoopState {
        var outbox: [[UInt8]] = []
        var receiver: (any ReplicationReceiver)?
        var stopRequested = false
        var isRunning = false
        var onStopped: [CheckedContinuation<Void, Never>] = []
    }

    let configuration: RedisReplicationConfiguration
    let shared = Mutex(Shared())
    /// Wakes poll() from any thread (publish, stop).
    let wakePipe = RedisWakePipe()

    init(configuration: RedisReplicationConfiguration) {
        self.configuration = configuration
    }

    // MARK: Any thread

    func start(receiver: any ReplicationReceiver) {
        let started = shared.withLock { shared in
            guard !shared.isRunning, !shared.stopRequested else { return false }
            shared.receiver = receiver
            shared.isRunning = true
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in run() }
        thread.name = "RedisReplication event loop"
        thread.start()
    }

    /// Queues `payload`; wakes the loop only when the outbox was empty (a non-empty one is taken whole on the
    /// loop's next turn, which an earlier wake-up already asked for), so a burst of clears costs one write(2).
    func publish(_ payload: [UInt8]) {
        let (overflowed, needsWake, receiver) = shared.withLock {
            shared -> (Bool, Bool, (any ReplicationReceiver)?) in
            guard !shared.stopRequested else { return (false, false, nil) }
            var overflowed = false
            if shared.outbox.count >= configuration.outboxLimit {
                shared.outbox.removeAll()
                overflowed = true
            }
            let wasEmpty = shared.outbox.isEmpty
            shared.outbox.append(payload)
            return (overflowed, wasEmpty, shared.receiver)
        }
        if needsWake { wake() }
        if overflowed { receiver?.transportDidDropOutgoingMessages() }
    }

    private func wake() {
        wakePipe.wake()
    }

    // MARK: Loop thread

    private func run() {
        BatchScheduling.yieldToRequests()
        var backoff = configuration.initialBackoff
        var link: RedisLink?
        let clock = ContinuousClock()
        var nextAttempt = clock.now
        // On a cluster, any node serves classic pub/sub (a PUBLISH reaches every node): a lost node moves the link
        // to the next seed.
        let seeds = configuration.seeds
        var seed = 0
        var refusals = 0
        report(.connecting)
        while !shared.withLock({ $0.stopRequested }) {
            guard let current = link else {
                if clock.now >= nextAttempt {
                    do {
                        link = try RedisLink(
                            configuration: configuration.pointed(at: seeds[seed % seeds.count]), clock: clock)
                        backoff = configuration.initialBackoff
                        report(.subscribed)
                    } catch {
                        seed += 1
                        report(.disconnected(reason: error.description))
                        nextAttempt = clock.now + RedisBackoff.advance(&backoff, maximum: configuration.maximumBackoff)
                    }
                }
                if link == nil { waitForWake(until: nextAttempt, clock: clock) }
                continue
            }
            do {
                // Taken by a swap: a copy emptied in place would allocate a new buffer every round.
                var outgoing: [[UInt8]] = []
                shared.withLock { swap(&outgoing, &$0.outbox) }
                if !outgoing.isEmpty { try current.publish(outgoing, channel: configuration.channel) }
                let messages = try current.turn(wakeReader: wakePipe.reader)
                let receiver = shared.withLock { $0.receiver }
                for message in messages { receiver?.transportDidReceive(message) }
                if current.acknowledgedPublishes > 0 { refusals = 0 }
            } catch {
                var unsent = current.unacknowledged
                var givenUp = false
                if current.refusedPublish {
                    refusals += 1
                    if refusals >= Self.refusalLimit, !unsent.isEmpty {
                        unsent.removeFirst()
                        (refusals, givenUp) = (0, true)
                    }
                }
                shared.withLock { $0.outbox.insert(contentsOf: unsent, at: 0) }
                if givenUp { shared.withLock { $0.receiver }?.transportDidDropOutgoingMessages() }
                link = nil
                seed += 1
                report(.disconnected(reason: error.description))
                nextAttempt = clock.now + RedisBackoff.advance(&backoff, maximum: configuration.maximumBackoff)
            }
        }
        if let current = link { flush(current) }
        link = nil
        report(.stopped)
        let waiters = shared.withLock { shared in
            shared.isRunning = false
            shared.receiver = nil
            defer { shared.onStopped.removeAll() }
            return shared.onStopped
        }
        for waiter in waiters { waiter.resume() }
    }

    /// On stop, with the link up: sends what is still queued and waits until Redis has acknowledged every PUBLISH,
    /// at most the command timeout, delivering what arrives meanwhile. A clear queued before the hub shut down then
    /// still reaches the other replicas; with the link down (or Redis silent) it goes, as it would on a crash.
    private func flush(_ link: RedisLink) {
        let outgoing = shared.withLock { shared in
            defer { shared.outbox.removeAll() }
            return shared.outbox
        }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.commandTimeout
        do {
            try link.publish(outgoing, channel: configuration.channel)
            while link.owesPublishReplies, clock.now < deadline {
                let messages = try link.turn(wakeReader: wakePipe.reader)
                let receiver = shared.withLock { $0.receiver }
                for message in messages { receiver?.transportDidReceive(message) }
            }
        } catch {
            // The link failed while flushing: what it did not send goes with it.
        }
    }

    private func report(_ state: ReplicationLinkState) {
        shared.withLock { $0.receiver }?.transportDidChange(state)
    }

    /// Sleeps in poll() on the wake pipe until `deadline` or a wake-up (publish, stop).
    private func waitForWake(until deadline: ContinuousClock.Instant, clock: ContinuousClock) {
        let remaining = deadline - clock.now
        guard remaining > .zero else { return }
        wakePipe.wait(milliseconds: remaining.milliseconds)
        wakePipe.drain()
    }
}

func drainWakePipe(_ fd: Int32) {
    withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { buffer in
        while read(fd, buffer.baseAddress, buffer.count) > 0 {}
    }
}
