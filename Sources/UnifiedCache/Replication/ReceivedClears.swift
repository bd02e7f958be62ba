/// The clears of one admitted message, in the order they were made: checked (every one of them decodes, or the
/// message was refused whole) but not yet decoded.
///
/// A replica holds a small share of a fleet's sessions, so most clears it receives name a session it does not hold.
/// Without a second level such a clear changes nothing here, and the applying task finds that out from the session
/// name's bytes alone (``ReplicationCoordinator/holds(_:in:)``): the clear's strings are never built. Every other
/// clear is decoded just before it is applied.
struct ReceivedClears: Sendable {
    /// The message's plaintext: one clear (format v3) or a batch (v4).
    let plaintext: [UInt8]
    let clears: [Clear]

    /// One clear of the message.
    struct Clear: Sendable {
        /// Where its `ReplicationMessageCodec` encoding is in ``ReceivedClears/plaintext``.
        var range: Range<Int>
        /// Milliseconds since 1970 on the sender's clock.
        var issuedAt: Int64
        /// Where its session name is, for a clear of one session that names one (see
        /// `ReplicationMessageCodec.Checked`).
        var session: Range<Int>?
    }

    /// The clear, decoded; nil only if it does not decode, which admission has ruled out.
    func message(_ clear: Clear) -> ReplicationMessage? {
        ReplicationMessageCodec.decode(plaintext[clear.range])
    }

    /// The name of the session `clear` concerns, read from its bytes; nil when it names none, or one no session has.
    func sessionName(_ clear: Clear) -> SessionWireName? {
        guard let range = clear.session else { return nil }
        return plaintext.withUnsafeBytes { SessionWireName(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
