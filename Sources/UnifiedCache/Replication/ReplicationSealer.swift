import CacheCrypto
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The clear header of a sealed replication message, all of it authenticated:
///
/// `version (1) | key id (4) | sender id (16) | counter (8) | issued-at (8) | ciphertext | tag (16)`
///
/// Version 3 carries one clear (`ReplicationMessageCodec`), version 4 a batch of clears queued together
/// (`ReplicationBatchCodec`); the header is the same, and the version byte is authenticated with the rest, so a
/// batch cannot be passed off as a single clear or the other way round. Integers are big-endian; issued-at is
/// milliseconds since 1970 on the sender's wall clock (for a batch, its latest clear's). The sender id is 16 random
/// bytes per process and the counter strictly increases for it, so the pair names one message for good: a receiver
/// keeps each sender's anti-replay window and refuses a counter it has seen or one below the window.
struct ReplicationEnvelope: Equatable, Sendable {
    /// One clear.
    static let version: UInt8 = 3
    /// A batch of clears.
    static let batchVersion: UInt8 = 4
    static let senderLength = 16
    static let headerLength = 1 + FleetKeyRing.idLength + senderLength + 8 + 8
    /// The shortest payload that can be a message: a header and a tag.
    static let minimumLength = headerLength + AES256GCMKey.tagLength

    /// ``version`` or ``batchVersion``.
    var version: UInt8
    var keyID: [UInt8]
    var sender: [UInt8]
    var counter: UInt64
    /// Milliseconds since 1970, sender's wall clock.
    var issuedAt: Int64

    /// Whether the plaintext is a batch (`ReplicationBatchCodec`) rather than one clear.
    var isBatch: Bool { version == Self.batchVersion }

    /// The header as sent, which is also the associated data the tag covers.
    var header: [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(Self.headerLength)
        bytes.append(contentsOf: keyID)
        bytes.append(contentsOf: sender)
        Self.append(counter, to: &bytes)
        Self.append(UInt64(bitPattern: issuedAt), to: &bytes)
        return bytes
    }

    /// The AES-GCM nonce: 4 zero bytes and the counter. Unique per key, since each sender has a key of its own.
    var nonce: [UInt8] {
        var bytes: [UInt8] = [0, 0, 0, 0]
        Self.append(counter, to: &bytes)
        return bytes
    }

    init(
        version: UInt8 = ReplicationEnvelope.version, keyID: [UInt8], sender: [UInt8], counter: UInt64,
        issuedAt: Int64
    ) {
        self.version = version
        self.keyID = keyID
        self.sender = sender
        self.counter = counter
        self.issuedAt = issuedAt
    }

    /// The header of `payload`; nil when it is too short for a header and a tag or is neither format v3 nor v4.
    init?(parsing payload: [UInt8]) {
        guard payload.count >= Self.minimumLength, payload[0] == Self.version || payload[0] == Self.batchVersion
        else { return nil }
        version = payload[0]
        var offset = 1
        keyID = Array(payload[offset..<(offset + FleetKeyRing.idLength)])
        offset += FleetKeyRing.idLength
        sender = Array(payload[offset..<(offset + Self.senderLength)])
        offset += Self.senderLength
        counter = Self.integer(payload, at: offset)
        issuedAt = Int64(bitPattern: Self.integer(payload, at: offset + 8))
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    private static func integer(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Seals this replica's messages under its sender id and counter, and opens the messages of any replica whose key
/// is in the ring.
///
/// Each sender seals with a key of its own, HKDF(master, salt: sender id, "ucache replication messages v3"), so the
/// nonce can be the counter without ever repeating under one key. The receiving side derives a sender's key once
/// and keeps it (a bounded cache, filled only by messages that authenticated).
final class ReplicationSealer: Sendable {
    /// Derived keys kept for other senders; past it the cache starts over (a fleet has a handful of replicas).
    static let openingKeyLimit = 256

    let secret: ReplicationSecret
    private let currentKeyID: [UInt8]
    /// Tells which process seals: `getpid()`, or what a test injects.
    private let processID: @Sendable () -> Int32
    private let sealing: Mutex<Sealing>
    private let openingKeys = Mutex<[OpeningKeyName: AES256GCMKey]>([:])

    /// This process's sender id, key and counter, and the process they were drawn for. A child made by `fork()`
    /// inherits them; were it to seal under them, two processes would use one key with the same counters as nonces
    /// (AES-GCM nonce reuse, which gives away the key's authentication). The seal path compares the pid first and
    /// draws a new sender id in a process that is not the one it was drawn for.
    private struct Sealing {
        var processID: Int32
        var sender: [UInt8]
        /// ``sender`` as a received message's is compared with it.
        var senderID: ReplicationSenderID
        var key: AES256GCMKey
        var counter: UInt64 = 0

        init(processID: Int32, sender: [UInt8], key: AES256GCMKey) {
            self.processID = processID
            self.sender = sender
            senderID = ReplicationSenderID(sender)
            self.key = key
        }
    }

    private struct OpeningKeyName: Hashable {
        var index: Int
        var sender: ReplicationSenderID
    }

    /// A received message's header, read where the message arrived: what admission checks, with no array made per
    /// field (``ReplicationEnvelope`` is the same header as sent).
    struct ReceivedHeader: Equatable {
        /// Whether the plaintext is a batch (format v4) rather than one clear (v3).
        var isBatch: Bool
        var sender: ReplicationSenderID
        var counter: UInt64
        /// Milliseconds since 1970, sender's wall clock.
        var issuedAt: Int64

        /// The header of `payload`; nil when it is too short for a header and a tag or is neither format v3 nor v4
        /// (exactly when `ReplicationEnvelope(parsing:)` is nil).
        init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= ReplicationEnvelope.minimumLength,
                payload[0] == ReplicationEnvelope.version || payload[0] == ReplicationEnvelope.batchVersion
            else { return nil }
            isBatch = payload[0] == ReplicationEnvelope.batchVersion
            let senderStart = 1 + FleetKeyRing.idLength
            let counterStart = senderStart + ReplicationEnvelope.senderLength
            sender = ReplicationSenderID(
                UnsafeRawBufferPointer(rebasing: payload[senderStart..<counterStart]))
            counter = UInt64(bigEndian: payload.loadUnaligned(fromByteOffset: counterStart, as: UInt64.self))
            issuedAt = Int64(
                bitPattern: UInt64(
                    bigEndian: payload.loadUnaligned(fromByteOffset: counterStart + 8, as: UInt64.self)))
        }
    }

    /// What ``receive(_:)`` found: what ``open(_:)`` finds, with the header read in place.
    enum Received: Equatable {
        case malformed
        case own
        case unauthentic
        case message(ReceivedHeader, [UInt8])
    }

    /// What ``open(_:)`` found.
    enum Opened: Equatable {
        /// Too short, or neither format v3 nor v4.
        case malformed
        /// This replica's own message, delivered back (not opened: it needs no cryptography).
        case own
        /// Sealed with no key of the ring, or altered.
        case unauthentic
        /// Authentic: its header and plaintext.
        case message(ReplicationEnvelope, [UInt8])
    }

    init(
        secret: ReplicationSecret, sender: [UInt8] = SecureRandom.bytes(ReplicationEnvelope.senderLength),
        processID: @escaping @Sendable () -> Int32 = { getpid() }
    ) {
        precondition(sender.count == ReplicationEnvelope.senderLength, "a sender id is 16 bytes")
        self.secret = secret
        self.processID = processID
        currentKeyID = secret.keyID(at: 0)
        sealing = Mutex(Sealing(processID: processID(), sender: sender, key: secret.messageKey(at: 0, sender: sender)))
    }

    /// This process's sender id: 16 random bytes, drawn again in a child after `fork()`.
    var sender: [UInt8] {
        sealing.withLock { sealing in
            renew(&sealing)
            return sealing.sender
        }
    }

    /// Draws a new sender id, key and counter when this is not the process they were drawn for (a child of
    /// `fork()`); one `getpid()` otherwise.
    private func renew(_ sealing: inout Sealing) {
        let process = processID()
        guard sealing.processID != process else { return }
        let sender = SecureRandom.bytes(ReplicationEnvelope.senderLength)
        sealing = Sealing(processID: process, sender: sender, key: secret.messageKey(at: 0, sender: sender))
    }

    /// Seals `plaintext` under the next counter and hands it to `deliver` before the next message gets a counter,
    /// so messages leave this replica in counter order (a receiver's window accepts a late one, but only so late).
    /// `version` says what the plaintext is: one clear (v3) or a batch (v4).
    func seal(
        _ plaintext: [UInt8], issuedAt: Int64, version: UInt8 = ReplicationEnvelope.version,
        deliver: ([UInt8]) -> Void
    ) {
        sealing.withLock { sealing in
            renew(&sealing)
            sealing.counter += 1
            let envelope = ReplicationEnvelope(
                version: version, keyID: currentKeyID, sender: sealing.sender, counter: sealing.counter,
                issuedAt: issuedAt)
            var sealed = envelope.header
            sealed.reserveCapacity(sealed.count + plaintext.count + AES256GCMKey.tagLength)
            let header = sealed
            sealing.key.seal(plaintext, nonce: envelope.nonce, authenticating: header, appendingTo: &sealed)
            deliver(sealed)
        }
    }

    /// Authenticates and decrypts `payload` (the caller has already capped its size).
    func open(_ payload: [UInt8]) -> Opened {
        switch receive(payload) {
        case .malformed: return .malformed
        case .own: return .own
        case .unauthentic: return .unauthentic
        case .message(_, let plaintext):
            // The header `receive` read: a payload it opened always parses.
            guard let envelope = ReplicationEnvelope(parsing: payload) else { return .malformed }
            return .message(envelope, plaintext)
        }
    }

    /// ``open(_:)`` as a receiver runs it on every message: the header read where it arrived, the sender compared
    /// and looked up as two words, the seal opened on the payload's own bytes (no slice, nonce or header copied).
    func receive(_ payload: [UInt8]) -> Received {
        payload.withUnsafeBytes { payload -> Received in
            guard let header = ReceivedHeader(payload) else { return .malformed }
            // After a fork, the parent's messages are another's: `ownSenderID` draws the child's id first.
            if header.sender == ownSenderID { return .own }
            let keyID = UnsafeRawBufferPointer(rebasing: payload[1..<(1 + FleetKeyRing.idLength)])
            guard let index = secret.keyIndex(id: keyID) else { return .unauthentic }
            let name = OpeningKeyName(index: index, sender: header.sender)
            let cached = openingKeys.withLock { $0[name] }
            let key = cached ?? secret.messageKey(at: index, sender: header.sender.bytes)
            let headerLength = ReplicationEnvelope.headerLength
            // The nonce: 4 zero bytes and the counter, big-endian (``ReplicationEnvelope/nonce``), on the stack.
            var nonce: (UInt64, UInt64) = (0, 0)
            let opened = withUnsafeMutableBytes(of: &nonce) { nonce in
                nonce.storeBytes(of: header.counter.bigEndian, toByteOffset: 4, as: UInt64.self)
                return key.open(
                    UnsafeRawBufferPointer(rebasing: payload[headerLength...]),
                    nonce: UnsafeRawBufferPointer(rebasing: nonce[..<AES256GCMKey.nonceLength]),
                    authenticating: UnsafeRawBufferPointer(rebasing: payload[..<headerLength]))
            }
            guard let plaintext = opened else { return .unauthentic }
            if cached == nil {
                openingKeys.withLock { keys in
                    if keys.count >= Self.openingKeyLimit { keys.removeAll() }
                    keys[name] = key
                }
            }
            return .message(header, plaintext)
        }
    }

    /// This process's sender id as two words (see ``sender``).
    private var ownSenderID: ReplicationSenderID {
        sealing.withLock { sealing in
            renew(&sealing)
            return sealing.senderID
        }
    }
}
