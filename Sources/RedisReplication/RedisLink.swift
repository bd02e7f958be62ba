#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A replica's live link to Redis: a subscriber connection on the channel and a publisher connection, with the
/// replies each still owes. Used only by the event-loop thread; a failure of either connection ends the link.
final class RedisLink {
    private enum Pending {
        case publish([UInt8], sentAt: ContinuousClock.Instant)
        case ping(sentAt: ContinuousClock.Instant)

        var sentAt: ContinuousClock.Instant {
            switch self {
            case .publish(_, let sentAt), .ping(let sentAt): return sentAt
            }
        }
    }

    private let configuration: RedisReplicationConfiguration
    private let clock: ContinuousClock
    private let subscriber: RedisConnection
    private let publisher: RedisConnection
    /// Replies the publisher connection owes, oldest first (Redis answers in order).
    private var pending: [Pending] = []
    private var subscriberPingSentAt: ContinuousClock.Instant?
    private var lastPing: ContinuousClock.Instant
    /// Set when Redis answered the first of ``unacknowledged`` with an error (e.g. NOPERM after an ACL change): the
    /// link ends, and the payload is still the first to re-send.
    private(set) var refusedPublish = false
    /// PUBLISH commands Redis accepted on this link.
    private(set) var acknowledgedPublishes = 0

    /// Connects both connections and subscribes; every step bounded by the configured timeouts.
    init(configuration: RedisReplicationConfiguration, clock: ContinuousClock) throws(RedisReplicationError) {
        self.configuration = configuration
        self.clock = clock
        publisher = try RedisConnection(configuration)
        subscriber = try RedisConnection(configuration)
        let reply = try subscriber.command([Array("SUBSCRIBE".utf8), Array(configuration.channel.utf8)])
        guard case .array(let items) = reply, items.first?.text == "subscribe" else {
            let detail: String? = if case .error(let text) = reply { text } else { nil }  // e.g. NOPERM (ACL)
            throw RedisReplicationError(.protocolError, "Redis did not confirm the subscription.", underlying: detail)
        }
        lastPing = clock.now
    }

    /// Payloads sent but not yet acknowledged: re-sent after reconnecting (a clear applied twice is harmless).
    var unacknowledged: [[UInt8]] {
        pending.compactMap { item in
            if case .publish(let payload, _) = item { return payload }
            return nil
        }
    }

    /// Whether a PUBLISH sent on this link still waits for Redis's answer.
    var owesPublishReplies: Bool {
        pending.contains { item in
            if case .publish = item { return true }
            return false
        }
    }

    /// Queues PUBLISH commands. Every payload counts as pending before it is queued, so a failure midway leaves
    /// none of them lost: the caller re-queues ``unacknowledged``.
    func publish(_ payloads: [[UInt8]], channel: String) throws(RedisReplicationError) {
        let now = clock.now
        pending.append(contentsOf: payloads.map { .publish($0, sentAt: now) })
        for payload in payloads {
            try publisher.append([Array("PUBLISH".utf8), Array(channel.utf8), payload])
        }
    }

    /// One round: health checks, writes, a poll() until something happens or a deadline, reads. Returns the
    /// payloads delivered on the channel.
    func turn(wakeReader: Int32) throws(RedisReplicationError) -> [[UInt8]] {
        var now = clock.now
        let timeout = configuration.commandTimeout
        for sentAt in [pending.first?.sentAt, subscriberPingSentAt].compactMap({ $0 }) where now - sentAt > timeout {
            throw RedisReplicationError(.timedOut, "Redis did not answer within \(timeout).")
        }
        if now - lastPing >= configuration.pingInterval {
            if subscriberPingSentAt == nil {
                try subscriber.append([Array("PING".utf8)])
                subscriberPingSentAt = now
            }
            if pending.isEmpty {
                try publisher.append([Array("PING".utf8)])
                pending.append(.ping(sentAt: now))
            }
            lastPing = now
        }
        let publisherWantsWrite = try !publisher.flush()
        let subscriberWantsWrite = try !subscriber.flush()

        var deadline = lastPing + configuration.pingInterval
        for sentAt in [pending.first?.sentAt, subscriberPingSentAt].compactMap({ $0 }) {
            deadline = min(deadline, sentAt + timeout)
        }
        now = clock.now
        // Replies parsed while SUBSCRIBE waited (a message right behind its confirmation) are not on the socket.
        let buffered = (subscriber: subscriber.hasBufferedInput, publisher: publisher.hasBufferedInput)
        let wait = deadline > now && !buffered.subscriber && !buffered.publisher ? (deadline - now).milliseconds : 0
        let readable = Int16(POLLIN)
        var descriptors = [
            pollfd(fd: wakeReader, events: readable, revents: 0),
            pollfd(
                fd: subscriber.fileDescriptor, events: readable | (subscriberWantsWrite ? Int16(POLLOUT) : 0),
                revents: 0),
            pollfd(
                fd: publisher.fileDescriptor, events: readable | (publisherWantsWrite ? Int16(POLLOUT) : 0),
                revents: 0),
        ]
        _ = poll(&descriptors, nfds_t(descriptors.count), Int32(wait))
        let ready = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)
        if descriptors[0].revents & readable != 0 { drainWakePipe(wakeReader) }
        var messages: [[UInt8]] = []
        if descriptors[1].revents & ready != 0 || buffered.subscriber {
            for reply in try subscriber.readAvailable() {
                guard case .array(let items) = reply, let kind = items.first?.text else { continue }
                if kind == "message", items.count == 3, case .string(let payload) = items[2] {
                    messages.append(payload)
                } else if kind == "pong" {
                    subscriberPingSentAt = nil
                }
            }
        }
        if descriptors[2].revents & ready != 0 || buffered.publisher {
            for reply in try publisher.readAvailable() {
                guard let answered = pending.first else { break }
                if case .error(let text) = reply {
                    // A refused PUBLISH stays pending: the caller re-sends it (or turns it into a drop request).
                    if case .publish = answered { refusedPublish = true } else { pending.removeFirst() }
                    throw RedisReplicationError(.protocolError, "Redis refused a command.", underlying: text)
                }
                pending.removeFirst()
                if case .publish = answered { acknowledgedPublishes += 1 }
            }
        }
        return messages
    }
}
