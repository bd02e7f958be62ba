/// SHA-256 (FIPS 180-4), written out so replication needs no crypto dependency. Used only through ``HMACSHA256``.
struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    static let blockSize = 64

    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    init() {
        pending.reserveCapacity(Self.blockSize)
    }

    /// The digest of `bytes` in one call.
    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    mutating func update(_ bytes: some Sequence<UInt8>) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in update(buffer) }
        if handled == nil { Array(bytes).withUnsafeBufferPointer { update($0) } }
    }

    private mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
        length &+= UInt64(buffer.count)
        var offset = 0
        while offset < buffer.count {
            let take = min(Self.blockSize - pending.count, buffer.count - offset)
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[offset..<(offset + take)]))
            offset += take
            if pending.count == Self.blockSize {
                compress(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The 32-byte digest; the hasher is spent afterwards.
    mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        pending.append(0x80)
        if pending.count > 56 {
            pending.append(contentsOf: [UInt8](repeating: 0, count: Self.blockSize - pending.count))
            compress(pending)
            pending.removeAll(keepingCapacity: true)
        }
        pending.append(contentsOf: [UInt8](repeating: 0, count: 56 - pending.count))
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitLength >> shift))
        }
        compress(pending)
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            digest.append(contentsOf: [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ])
        }
        return digest
    }

    private mutating func compress(_ block: [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { words in
            for index in 0..<16 {
                let base = index * 4
                words[index] =
                    UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16 | UInt32(block[base + 2]) << 8
                    | UInt32(block[base + 3])
            }
            for index in 16..<64 {
                let s0 = rotate(words[index - 15], 7) ^ rotate(words[index - 15], 18) ^ (words[index - 15] >> 3)
                let s1 = rotate(words[index - 2], 17) ^ rotate(words[index - 2], 19) ^ (words[index - 2] >> 10)
                words[index] = words[index - 16] &+ s0 &+ words[index - 7] &+ s1
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            var (e, f, g, h) = (state[4], state[5], state[6], state[7])
            for index in 0..<64 {
                let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ s1 &+ choice &+ Self.roundConstants[index] &+ words[index]
                let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                (h, g, f, e) = (g, f, e, d &+ temp1)
                (d, c, b, a) = (c, b, a, temp1 &+ s0 &+ majority)
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
            state[5] &+= f
            state[6] &+= g
            state[7] &+= h
        }
    }

    private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}

/// HMAC-SHA256 (RFC 2104): the keyed hash that names sessions on the wire and authenticates replication messages.
///
/// A value holds the hash states after the padded key, so a copy of a keyed value computes further codes under the
/// same key without hashing the key again.
struct HMACSHA256 {
    private var inner = SHA256()
    private var outer = SHA256()

    init(key: [UInt8]) {
        var block = key.count > SHA256.blockSize ? SHA256.hash(key) : key
        block.append(contentsOf: [UInt8](repeating: 0, count: SHA256.blockSize - block.count))
        inner.update(block.map { $0 ^ 0x36 })
        outer.update(block.map { $0 ^ 0x5c })
    }

    /// The 32-byte authentication code of `message` under `key`.
    static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        HMACSHA256(key: key).authenticationCode(for: message)
    }

    /// The master key of a fleet's shared secret (the replication or the second-level one), which must be at least
    /// 16 bytes; `name` says which secret in the error.
    init(sharedSecret secret: [UInt8], name: String) throws(UnifiedCacheError) {
        guard secret.count >= 16 else {
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "The \(name) secret must be at least 16 bytes long (got \(secret.count)).")
        }
        self.init(key: secret)
    }

    /// A key of its own for one purpose, derived from this (master) key and the purpose's label, so keys of
    /// different purposes never coincide though they come from one shared secret.
    func derivedKey(_ label: String) -> HMACSHA256 {
        HMACSHA256(key: authenticationCode(for: Array(label.utf8)))
    }

    /// The code of `message` under this value's key; the value stays usable.
    func authenticationCode(for message: some Sequence<UInt8>) -> [UInt8] {
        var copy = self
        copy.update(message)
        return copy.finalize()
    }

    mutating func update(_ bytes: some Sequence<UInt8>) {
        inner.update(bytes)
    }

    mutating func finalize() -> [UInt8] {
        outer.update(inner.finalize())
        return outer.finalize()
    }
}
