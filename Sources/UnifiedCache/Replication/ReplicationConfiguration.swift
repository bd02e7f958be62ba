import CacheCore

/// How a ``CacheHub`` takes part in a fleet of replicas: the transport that carries clears, the fleet secret, and the
/// rules that keep a captured message from being replayed.
///
/// Set it on ``CacheHub/Configuration/replication``; nil (the default) keeps the hub an island, which is right for a
/// BFF that runs one replica. The Redis module provides the transport (`RedisReplicationTransport`).
public struct ReplicationConfiguration: Sendable {
    /// Carries sealed clears between replicas.
    public var transport: any ReplicationTransport
    /// Names sessions on the wire and seals every message; the same on every replica of the fleet.
    public var secret: ReplicationSecret
    /// Told of link changes, gaps and rejected messages (for logs); silent when nil. Called on the transport's
    /// thread or the coordinator's task: keep it cheap.
    public var observer: (@Sendable (ReplicationEvent) -> Void)?
    /// The largest payload looked at; a larger one is refused before any cryptography. Default: 64 KiB (a clear is
    /// usually under 200 bytes).
    public var maximumPayloadBytes: Int
    /// How long a message stays acceptable after it was issued (by the sender's wall clock); an older one is
    /// refused. Default: 60 s.
    public var messageLifetime: Duration
    /// How far apart the replicas' wall clocks may be. A session ending or clear applies to a session only if the
    /// session was created here no later than the message's issue time plus this allowance, so a replayed logout
    /// never ends a session started after it; a legitimate one is never missed while clocks differ by less than the
    /// allowance. A message issued further than this in this replica's future is refused (``ReplicationRejection/future``),
    /// whatever it asks, so a sender whose clock runs ahead cannot reach sessions created after its message.
    /// Default: 2 s.
    public var clockSkewAllowance: Duration
    /// The wall clock that stamps messages and judges their age; `SystemCacheClock` by default (replicas are
    /// separate processes: the wall clock is the one time they share). Tests inject a `ManualCacheClock`.
    public var clock: any CacheClock
    /// Clears sealed into one message at most when several wait in the outbox together (a burst, or clears made
    /// while the previous message was being sealed). 1, the default, sends each clear in a message of its own (wire
    /// format v3), which every replica of this release and of the previous one reads. Above 1, clears queued
    /// together leave as one batch (format v4), split past this many clears or past ``maximumPayloadBytes``: one
    /// seal, one counter and one delivery per subscriber for the lot, which is what a large fleet's bus and
    /// receivers need. Every replica reads both formats; turn batching on once every replica of the fleet runs a
    /// release that reads v4 (an older one refuses a batch as malformed, and would miss its clears). At most 1,024.
    public var maximumClearsPerMessage: Int
    /// With batching on, how long the sealing thread, woken by a clear after it had nothing to do, waits for more
    /// clears before it seals: clears made one at a time (a replica making 1,000 a second makes one a millisecond)
    /// then share a message too, at the price of this much delivery delay. Zero, the default, seals at once, so
    /// only clears that queued together (while the previous message was sealed, or in the sealing thread's nap of
    /// 0.2 ms after it) share one. At most 1 s; ignored when ``maximumClearsPerMessage`` is 1.
    public var batchingWindow: Duration
    /// How long the hub's sealing thread naps after handing clears over (``ReplicationOutbox/nap`` by default; zero
    /// parks it at once, so every clear after it wakes it). Tests set it.
    var sealingNap = ReplicationOutbox.nap

    /// Replication over `transport`, sealed with `secret`, with the replay rules given or defaulted.
    public init(
        transport: any ReplicationTransport,
        secret: ReplicationSecret,
        observer: (@Sendable (ReplicationEvent) -> Void)? = nil,
        maximumPayloadBytes: Int = 64 * 1024,
        messageLifetime: Duration = .seconds(60),
        clockSkewAllowance: Duration = .seconds(2),
        clock: any CacheClock = SystemCacheClock(),
        maximumClearsPerMessage: Int = 1,
        batchingWindow: Duration = .zero
    ) {
        self.transport = transport
        self.secret = secret
        self.observer = observer
        self.maximumPayloadBytes = maximumPayloadBytes
        self.messageLifetime = messageLifetime
        self.clockSkewAllowance = clockSkewAllowance
        self.clock = clock
        self.maximumClearsPerMessage = maximumClearsPerMessage
        self.batchingWindow = batchingWindow
    }

    /// Checks the replay rules: a positive lifetime, an allowance from zero up to the lifetime, a payload cap of at
    /// least 256 bytes, 1 to 1,024 clears per message, a batching window from zero to 1 s.
    func validate() throws(UnifiedCacheError) {
        guard messageLifetime > .zero, clockSkewAllowance >= .zero, clockSkewAllowance <= messageLifetime,
            maximumPayloadBytes >= 256, (1...ReplicationBatchCodec.maximumClears).contains(maximumClearsPerMessage),
            batchingWindow >= .zero, batchingWindow <= .seconds(1), sealingNap >= .zero
        else {
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "Replication needs messageLifetime > 0, 0 ≤ clockSkewAllowance ≤ messageLifetime, "
                    + "maximumPayloadBytes ≥ 256, 1 ≤ maximumClearsPerMessage ≤ 1024 and 0 ≤ batchingWindow ≤ 1 s.")
        }
    }
}

/// Why a replica refused a payload from the bus (the `reason` label of `ucache_replication_rejected_total`).
public enum ReplicationRejection: String, CaseIterable, Hashable, Sendable {
    /// Larger than ``ReplicationConfiguration/maximumPayloadBytes``: refused before any cryptography.
    case oversize
    /// Too short, or neither wire format v3 nor v4 (e.g. from a replica of an older release).
    case malformed
    /// Not sealed with a key of this replica's ring, or altered.
    case unauthentic
    /// Issued longer ago than ``ReplicationConfiguration/messageLifetime``.
    case stale
    /// Issued further in the future than ``ReplicationConfiguration/clockSkewAllowance`` (a sender's clock ahead).
    case future
    /// Its sender already had a message with this counter delivered, or one so much later that this counter is
    /// below the sender's anti-replay window: a replay (or a re-send after a reconnection, which is harmless to
    /// refuse).
    case replayed
    /// Authentic, but its content is not a clear this release knows.
    case undecodable
    /// A session clear or ending issued before the session it names was created here (beyond the clock-skew
    /// allowance): it cannot concern that session, which is left alone.
    case predatesSession
}

/// Something replication did, for logs and alerts. Never carries session ids, tokens or values.
public enum ReplicationEvent: Hashable, Sendable {
    /// The link to the bus changed state.
    case linkChanged(ReplicationLinkState)
    /// The replica (re)subscribed after a time in which it may have missed messages, and dropped every local entry
    /// written before: `entries` REST entries and `records` GraphQL records.
    case droppedLocalEntriesAfterGap(entries: Int, records: Int)
    /// Another replica lost outgoing messages and asked every replica to drop its local entries.
    case droppedLocalEntriesOnRequest(entries: Int, records: Int)
    /// A payload was refused (or, for ``ReplicationRejection/predatesSession``, not applied to a newer session).
    case rejectedMessage(ReplicationRejection)
    /// This replica's outgoing queue overflowed; it asked every replica to drop its local entries.
    case droppedOutgoingMessages
}
