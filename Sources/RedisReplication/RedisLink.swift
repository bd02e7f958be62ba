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

    /// When the oldest reply still owed (a PUBLISH's or PING's on the publisher, the subscriber's PONG) was asked
    /// for; nil when none is owed.
    private var oldestOwed: ContinuousClock.Instant? {
        // Read in place (`first` would copy the entry, its payload retained and released, twice a round).
        let publisherSince = pending.isEmpty ? nil : pending[0].sentAt
        switch (publisherSince, subscriberPingSentAt) {
        case (let publisher?, let subscriber?): return min(publisher, subscriber)
        case (let publisher?, nil): return publisher
        case (nil, let subscriber): return subscriber
        }
    }

    /// One round: health checks, writes, a poll() until something happens or a deadline, reads. Returns the
    /// payloads delivered on the channel.
    func turn(wakeReader: Int32) throws(RedisReplicationError) -> [[UInt8]] {
        var now = clock.now
        let timeout = configuration.commandTimeout
        if let oldest = oldestOwed, now - oldest > timeout {
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
        if let oldest = oldestOwed { deadline = min(deadline, oldest + timeout) }
        now = clock.now
        // Replies parsed while SUBSCRIBE waited (a message right behind its confirmation) are not on the socket.
        let buffered = (subscriber: subscriber.hasBufferedInput, publisher: publisher.hasBufferedInput)
        let wait = deadline > now && !buffered.subscriber && !buffered.publisher ? (deadline - now).milliseconds : 0
        let readable = Int16(POLLIN)
        // On the stack: the round allocates nothing unless a message arrives.
        let (wakeEvents, subscriberEvents, publisherEvents) = withUnsafeTemporaryAllocation(
            of: pollfd.self, capacity: 3
        ) { descriptors in
            descriptors[0] = pollfd(fd: wakeReader, events: readable, revents: 0)
            descriptors[1] = pollfd(
                fd: subscriber.fileDescriptor, events: readable | (subscriberWantsWrite ? Int16(POLLOUT) : 0),
                revents: 0)
            descriptors[2] = pollfd(
                fd: publisher.fileDescriptor, events: readable | (publisherWantsWrite ? Int16(POLLOUT) : 0),
                revents: 0)
            _ = poll(descriptors.baseAddress, 3, Int32(wait))
            return (descriptors[0].revents, descriptors[1].revents, descriptors[2].revents)
        }
        let ready = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)
        if wakeEvents & readable != 0 { drainWakePipe(wakeReader) }
        var messages: [[UInt8]] = []
        if subscriberEvents & ready != 0 || buffered.subscriber {
            var ponged = false
            func note(_ event: RedisPubSubEvent) {
                switch event {
                case .message(let payload): messages.append(payload)
                case .pong: ponged = true
                case .other: break
                }
            }
            for reply in subscriber.takeParsedAhead() { note(RedisPubSubEvent(reply)) }
            try subscriber.readAvailable { reply in note(RedisPubSubEvent(reply)) }
            if ponged { subscriberPingSentAt = nil }
        }
        if publisherEvents & ready != 0 || buffered.publisher {
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
