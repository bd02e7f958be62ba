import Foundation

/// The limits a received payload must meet, from ``ReplicationConfiguration``, in the units the checks use.
struct ReplayRules: Sendable {
    var maximumPayloadBytes: Int
    /// ``ReplicationConfiguration/messageLifetime`` in milliseconds.
    var lifetime: Int64
    /// ``ReplicationConfiguration/clockSkewAllowance`` in milliseconds.
    var skewAllowance: Int64

    init(_ configuration: ReplicationConfiguration) {
        maximumPayloadBytes = configuration.maximumPayloadBytes
        lifetime = Self.milliseconds(configuration.messageLifetime)
        skewAllowance = Self.milliseconds(configuration.clockSkewAllowance)
    }

    /// Whole milliseconds of `duration`, clamped to ±2^53 (no overflow, never a trap).
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let limit: Int64 = 1 << 53
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow, scaled > -limit, scaled < limit else { return seconds < 0 ? -limit : limit }
        return scaled + attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds since 1970 of `date`, clamped to ±2^53 (0 for a date that is not a number).
    static func milliseconds(since1970 date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(max(-9.0e15, min(9.0e15, value)))
    }
}

extension ReplicationCoordinator {
    /// What `admit(_:)` decided about a payload.
    enum Admission {
        /// Its clears in the order they were made (one for a v3 message), each with its own issue time, checked but
        /// not yet decoded.
        case accepted(ReceivedClears)
        case own
        case rejected(ReplicationRejection)
    }

    /// The checks every payload passes before it is applied, cheapest first: its size (before any cryptography),
    /// its seal, its age (at most the lifetime old, at most the clock-skew allowance ahead), its counter against the
    /// sender's anti-replay window, then its content. A batch (format v4) passes them as one message: its age is its
    /// latest clear's (the envelope's issued-at), and it is refused whole when any check or any clear in it fails.
    func admit(_ payload: [UInt8]) -> Admission {
        guard payload.count <= rules.maximumPayloadBytes else { return .rejected(.oversize) }
        let envelope: ReplicationSealer.ReceivedHeader
        let plaintext: [UInt8]
        switch sealer.receive(payload) {
        case .malformed: return .rejected(.malformed)
        case .own: return .own
        case .unauthentic: return .rejected(.unauthentic)
        case .message(let opened, let bytes): (envelope, plaintext) = (opened, bytes)
        }
        let now = nowMilliseconds
        let age = now.subtractingReportingOverflow(envelope.issuedAt)
        guard !age.overflow else { return .rejected(envelope.issuedAt > now ? .future : .stale) }
        if age.partialValue > rules.lifetime { return .rejected(.stale) }
        // Ahead by no more than the skew allowance: a sender whose clock runs ahead cannot issue a clear that
        // `concerns(issuedAt:createdAt:)` would apply to sessions created here after it arrived.
        if age.partialValue < -rules.skewAllowance { return .rejected(.future) }
        let fresh = state.withLock { state in
            state.replayWindows.accept(
                sender: envelope.sender, counter: envelope.counter, issuedAt: envelope.issuedAt, now: now,
                lifetime: rules.lifetime)
        }
        guard fresh else { return .rejected(.replayed) }
        guard envelope.isBatch else {
            guard let checked = ReplicationMessageCodec.check(plaintext[...]) else { return .rejected(.undecodable) }
            let clear = ReceivedClears.Clear(
                range: plaintext.indices, issuedAt: envelope.issuedAt, session: checked.session)
            return .accepted(ReceivedClears(plaintext: plaintext, clears: [clear]))
        }
        let clears = ReplicationBatchCodec.check(plaintext, maximumAgeOffset: rules.lifetime) {
            ReceivedClears.Clear(
                range: $0.range, issuedAt: envelope.issuedAt - $0.ageOffset, session: $0.checked.session)
        }
        guard let clears else { return .rejected(.undecodable) }
        return .accepted(ReceivedClears(plaintext: plaintext, clears: clears))
    }

    /// Whether a clear issued at `issuedAt` may touch a session created here at `createdAt`: only if the session
    /// existed when it was issued, give or take the clock-skew allowance.
    func concerns(issuedAt: Int64, createdAt: Int64) -> Bool {
        let (limit, overflow) = issuedAt.addingReportingOverflow(rules.skewAllowance)
        return overflow || createdAt <= limit
    }
}
