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

/// Each sender's highest counter seen, bounded: an entry whose last message is older than the lifetime can go,
/// since any message of that age is refused by the age check anyway.
struct HighWaterMarks {
    /// Senders remembered at most; past it, expired entries go first, then the longest silent.
    static let limit = 4096

    struct Mark {
        var counter: UInt64
        /// Issue time of the sender's last accepted message (its clock), milliseconds since 1970.
        var issuedAt: Int64
    }

    private(set) var marks: [[UInt8]: Mark] = [:]

    /// Records `counter` for `sender` when it is above the sender's mark; false (a replay) otherwise.
    mutating func advance(sender: [UInt8], counter: UInt64, issuedAt: Int64, now: Int64, lifetime: Int64) -> Bool {
        if let mark = marks[sender] {
            guard counter > mark.counter else { return false }
            marks[sender] = Mark(counter: counter, issuedAt: max(issuedAt, mark.issuedAt))
            return true
        }
        if marks.count >= Self.limit {
            marks = marks.filter { now - $0.value.issuedAt <= lifetime }
            if marks.count >= Self.limit, let oldest = marks.min(by: { $0.value.issuedAt < $1.value.issuedAt }) {
                marks[oldest.key] = nil
            }
        }
        marks[sender] = Mark(counter: counter, issuedAt: issuedAt)
        return true
    }
}

extension ReplicationCoordinator {
    /// What `admit(_:)` decided about a payload.
    enum Admission {
        case accepted(ReplicationMessage, issuedAt: Int64)
        case own
        case rejected(ReplicationRejection)
    }

    /// The checks every payload passes before it is applied, cheapest first: its size (before any cryptography),
    /// its seal, its age, its counter against the sender's high-water mark, then its content.
    func admit(_ payload: [UInt8]) -> Admission {
        guard payload.count <= rules.maximumPayloadBytes else { return .rejected(.oversize) }
        let envelope: ReplicationEnvelope
        let plaintext: [UInt8]
        switch sealer.open(payload) {
        case .malformed: return .rejected(.malformed)
        case .own: return .own
        case .unauthentic: return .rejected(.unauthentic)
        case .message(let opened, let bytes): (envelope, plaintext) = (opened, bytes)
        }
        let now = nowMilliseconds
        let age = now.subtractingReportingOverflow(envelope.issuedAt)
        guard !age.overflow else { return .rejected(envelope.issuedAt > now ? .future : .stale) }
        if age.partialValue > rules.lifetime { return .rejected(.stale) }
        if age.partialValue < -rules.lifetime { return .rejected(.future) }
        let fresh = state.withLock { state in
            state.highWater.advance(
                sender: envelope.sender, counter: envelope.counter, issuedAt: envelope.issuedAt, now: now,
                lifetime: rules.lifetime)
        }
        guard fresh else { return .rejected(.replayed) }
        guard let message = ReplicationMessageCodec.decode(plaintext) else { return .rejected(.undecodable) }
        return .accepted(message, issuedAt: envelope.issuedAt)
    }

    /// Whether a clear issued at `issuedAt` may touch a session created here at `createdAt`: only if the session
    /// existed when it was issued, give or take the clock-skew allowance.
    func concerns(issuedAt: Int64, createdAt: Int64) -> Bool {
        let (limit, overflow) = issuedAt.addingReportingOverflow(rules.skewAllowance)
        return overflow || createdAt <= limit
    }
}
