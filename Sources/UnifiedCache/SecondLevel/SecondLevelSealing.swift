import CacheCrypto
import Synchronization

/// Every second-level value encrypted and authenticated (AES-256-GCM), bound to where it was written: a value moved
/// to another key, namespace, kind or generation, altered, or forged by someone who can write Redis but does not
/// know the fleet secret, does not open.
///
/// Layout: magic `UC2S`, version (1), key id (4: the ring key it was sealed with), sender id (16 random bytes of
/// this process), counter (8, big-endian), ciphertext, tag (16). The first 33 bytes are the header.
///
/// Nonces: each process seals under a key of its own, HKDF(current master key, salt: sender id, "ucache second
/// level values v2"), with the nonce 4 zero bytes ‖ counter. The counter is never reused (it only grows, under a
/// lock), so no nonce repeats under a key whatever the write rate; after 2³² seals the process draws a new sender
/// id (a new key), which keeps each key far inside AES-GCM's usage limits (at 100,000 writes/s that is every
/// 12 hours). Random 96-bit nonces under one long-lived key would not be safe for months at that rate.
///
/// Associated data: the header, then (each behind a 4-byte length) the store's key prefix, the namespace, the
/// kind, the entry name and the generation token the value was written under. A reader opens with the token its
/// read returned, so a value copied to another user's key, to the shared namespace, or into a later generation
/// (after a logout) is refused.
package final class SecondLevelSealing: Sendable {
    static let magic: [UInt8] = Array("UC2S".utf8)
    static let version: UInt8 = 1
    static let keyLabel = "ucache second level values v2"
    static let senderIDLength = 16
    static let headerLength = 4 + 1 + FleetKeyRing.idLength + senderIDLength + 8
    /// Header and tag: what sealing adds to a value.
    package static let overhead = headerLength + AES256GCMKey.tagLength
    /// Seals under one sender key before a new one is drawn.
    static let sealsPerSender: UInt64 = 1 << 32
    /// Sender keys remembered for opening; only keys that opened a value are kept, so forged sender ids add none.
    static let openerCapacity = 1_024

    /// Where a value belongs: everything its associated data binds.
    package struct Binding: Sendable {
        var keyPrefix: String
        var namespace: String
        var kind: String
        var name: String
        var generation: String

        package init(keyPrefix: String, namespace: String, kind: String, name: String, generation: String) {
            self.keyPrefix = keyPrefix
            self.namespace = namespace
            self.kind = kind
            self.name = name
            self.generation = generation
        }
    }

    /// Why a value was refused (the `reason` label of `ucache_l2_rejected_total`).
    package enum Refusal: String, Error, Sendable, CaseIterable {
        /// Not a sealed value of this version (a plaintext value of an earlier release, truncated, another magic).
        case format
        /// Sealed by a key this ring does not hold, altered, forged, or moved from where it was written.
        case unauthentic
        /// Larger than the store accepts: refused before any cryptography.
        case oversize
        /// Read under a generation older than one this replica saw or cleared (see ``SecondLevelGenerationGuard``).
        case rollback
        /// Read under a generation or epoch that is not `<epoch>.<generation>` of two decimal `UInt64`s.
        case malformed
        /// Read under a generation or epoch beyond any the fleet writes (``SecondLevelGenerationGuard/plausibleLimit``).
        case implausible
        /// Sealed before a clear this replica saw (see ``SecondLevelClearMarks``).
        case cleared
    }

    private struct Sender {
        var id: [UInt8]
        var key: AES256GCMKey
        var counter: UInt64
    }

    private let ring: FleetKeyRing
    private let sender: Mutex<Sender>
    private let openers = Mutex<[OpenerID: AES256GCMKey]>([:])

    /// Which sender key opens a value: its ring key's id and sender id, read from the header in place (every L2
    /// hit looks one up; arrays of them cost three allocations and a byte-wise hash).
    private struct OpenerID: Hashable {
        var keyID: UInt32
        var senderHigh: UInt64
        var senderLow: UInt64

        /// `value` is at least a header long.
        init(_ value: UnsafeRawBufferPointer) {
            keyID = value.loadUnaligned(fromByteOffset: 5, as: UInt32.self)
            senderHigh = value.loadUnaligned(fromByteOffset: 9, as: UInt64.self)
            senderLow = value.loadUnaligned(fromByteOffset: 17, as: UInt64.self)
        }
    }

    package convenience init(secret: SecondLevelSecret) {
        self.init(ring: secret.ring)
    }

    init(ring: FleetKeyRing) {
        self.ring = ring
        let id = SecureRandom.bytes(Self.senderIDLength)
        sender = Mutex(Sender(id: id, key: Self.key(ring.current, sender: id), counter: 0))
    }

    private static func key(_ master: FleetKeyRing.Key, sender: [UInt8]) -> AES256GCMKey {
        AES256GCMKey(key: master.derivedKey(keyLabel, salt: sender))
    }

    /// `plaintext` sealed for `binding` under this process's current key and next counter.
    package func seal(_ plaintext: [UInt8], for binding: Binding) -> [UInt8] {
        let (id, key, counter) = sender.withLock { sender -> ([UInt8], AES256GCMKey, UInt64) in
            if sender.counter >= Self.sealsPerSender {
                let id = SecureRandom.bytes(Self.senderIDLength)
                sender = Sender(id: id, key: Self.key(ring.current, sender: id), counter: 0)
            }
            defer { sender.counter += 1 }
            return (sender.id, sender.key, sender.counter)
        }
        var value: [UInt8] = []
        value.reserveCapacity(Self.overhead + plaintext.count)
        value.append(contentsOf: Self.magic)
        value.append(Self.version)
        value.append(contentsOf: ring.current.id)
        value.append(contentsOf: id)
        let nonce = Self.nonce(counter)
        value.append(contentsOf: nonce[4...])
        key.seal(plaintext, nonce: nonce, authenticating: Self.associatedData(value, binding), appendingTo: &value)
        return value
    }

    /// The plaintext of `value` if it was sealed for exactly `binding` by a key of the ring.
    package func open(_ value: [UInt8], for binding: Binding) -> Result<[UInt8], Refusal> {
        guard value.count >= Self.overhead, value.starts(with: Self.magic), value[4] == Self.version else {
            return .failure(.format)
        }
        guard let master = ring.key(id: value[5..<9]) else { return .failure(.unauthentic) }
        let cacheKey = value.withUnsafeBytes { OpenerID($0) }
        let cached = openers.withLock { $0[cacheKey] }
        let key = cached ?? Self.key(master, sender: Array(value[9..<25]))
        let associatedData = Self.associatedData(value[..<Self.headerLength], binding)
        // Opened in place: the nonce (four zero bytes, then the header's counter) on the stack, no generic walk.
        let opened = value.withUnsafeBytes { value in
            associatedData.withUnsafeBytes { associatedData in
                withUnsafeTemporaryAllocation(byteCount: AES256GCMKey.nonceLength, alignment: 1) { nonce in
                    nonce.initializeMemory(as: UInt8.self, repeating: 0)
                    nonce.baseAddress!.advanced(by: 4).copyMemory(
                        from: value.baseAddress!.advanced(by: 25), byteCount: Self.headerLength - 25)
                    return key.open(
                        UnsafeRawBufferPointer(rebasing: value[Self.headerLength...]),
                        nonce: UnsafeRawBufferPointer(nonce), authenticating: associatedData)
                }
            }
        }
        guard let plaintext = opened else { return .failure(.unauthentic) }
        if cached == nil {
            openers.withLock { openers in
                if openers.count >= Self.openerCapacity { openers.removeAll(keepingCapacity: true) }
                openers[cacheKey] = key
            }
        }
        return .success(plaintext)
    }

    /// This process's sender id and the counter its next seal takes: every value it sealed so far is before it.
    func position() -> (sender: [UInt8], counter: UInt64) {
        sender.withLock { ($0.id, $0.counter) }
    }

    /// The sender id and counter in the header of `value` (one that opened: they are authenticated).
    static func origin(of value: [UInt8]) -> (sender: ArraySlice<UInt8>, counter: UInt64) {
        (value[9..<25], value[25..<headerLength].reduce(0) { $0 << 8 | UInt64($1) })
    }

    static func nonce(_ counter: UInt64) -> [UInt8] {
        var nonce: [UInt8] = [0, 0, 0, 0]
        for shift in stride(from: 56, through: 0, by: -8) { nonce.append(UInt8(truncatingIfNeeded: counter >> shift)) }
        return nonce
    }

    static func associatedData(_ header: some Collection<UInt8>, _ binding: Binding) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(
            header.count + 5 * 4 + binding.keyPrefix.utf8.count + binding.namespace.utf8.count
                + binding.kind.utf8.count + binding.name.utf8.count + binding.generation.utf8.count)
        data.append(contentsOf: header)
        // Field by field, in this order (no array of them: every L2 hit makes this).
        appendField(binding.keyPrefix, to: &data)
        appendField(binding.namespace, to: &data)
        appendField(binding.kind, to: &data)
        appendField(binding.name, to: &data)
        appendField(binding.generation, to: &data)
        return data
    }

    /// A field of the associated data: its 4-byte big-endian length, then its bytes.
    private static func appendField(_ field: String, to data: inout [UInt8]) {
        let count = UInt32(clamping: field.utf8.count)
        data.append(UInt8(truncatingIfNeeded: count >> 24))
        data.append(UInt8(truncatingIfNeeded: count >> 16))
        data.append(UInt8(truncatingIfNeeded: count >> 8))
        data.append(UInt8(truncatingIfNeeded: count))
        data.append(contentsOf: field.utf8)
    }
}
