/// Each sender's sliding anti-replay window, as IPsec (RFC 4303 §3.4.3) and DTLS (RFC 6347 §4.1.2.6) keep one: the
/// highest counter accepted and a bitmap of the ``width`` counters below it. A message the bus delivers late (on a
/// cluster failover, relayed through another node behind a later one) is still applied, once; a counter already
/// seen, or older than the window, is a replay.
///
/// Bounded: an entry whose last message is older than the lifetime can go, since any message of that age is refused
/// by the age check anyway.
struct AntiReplayWindows {
    /// Senders remembered at most; past it, expired entries go first, then the longest silent.
    static let limit = 4096
    /// Counters below the highest one that are still told apart (bits of ``Window/seen``).
    static let width: UInt64 = 128

    struct Window {
        /// The highest counter accepted from the sender.
        var highest: UInt64
        /// Bit `i` set: counter `highest - i` was accepted (bit 0 is `highest` itself).
        var seen: UInt128
        /// Issue time of the sender's latest accepted message (its clock), milliseconds since 1970.
        var issuedAt: Int64

        /// Records `counter` when it is new and inside the window; false (a replay) otherwise.
        mutating func accept(_ counter: UInt64, issuedAt: Int64) -> Bool {
            if counter > highest {
                let shift = counter - highest
                seen = shift >= AntiReplayWindows.width ? 1 : seen << shift | 1
                highest = counter
            } else {
                let offset = highest - counter
                guard offset < AntiReplayWindows.width else { return false }
                let bit: UInt128 = 1 << offset
                guard seen & bit == 0 else { return false }
                seen |= bit
            }
            self.issuedAt = max(self.issuedAt, issuedAt)
            return true
        }
    }

    /// Keyed by the sender id's two words: looked up on every received message.
    private var bySender: [ReplicationSenderID: Window] = [:]

    /// Each sender's window, keyed by its id's bytes (a copy, for inspection).
    var windows: [[UInt8]: Window] {
        Dictionary(uniqueKeysWithValues: bySender.map { ($0.key.bytes, $0.value) })
    }

    /// Records `counter` for `sender` when it was not seen and is not older than the sender's window; false (a
    /// replay) otherwise.
    mutating func accept(sender: [UInt8], counter: UInt64, issuedAt: Int64, now: Int64, lifetime: Int64) -> Bool {
        accept(
            sender: ReplicationSenderID(sender), counter: counter, issuedAt: issuedAt, now: now, lifetime: lifetime)
    }

    /// ``accept(sender:counter:issuedAt:now:lifetime:)`` for a sender id already read as two words.
    mutating func accept(
        sender: ReplicationSenderID, counter: UInt64, issuedAt: Int64, now: Int64, lifetime: Int64
    ) -> Bool {
        if let accepted = bySender[sender]?.accept(counter, issuedAt: issuedAt) { return accepted }
        if bySender.count >= Self.limit {
            bySender = bySender.filter { now - $0.value.issuedAt <= lifetime }
            if bySender.count >= Self.limit, let oldest = bySender.min(by: { $0.value.issuedAt < $1.value.issuedAt }) {
                bySender[oldest.key] = nil
            }
        }
        bySender[sender] = Window(highest: counter, seen: 1, issuedAt: issuedAt)
        return true
    }
}
