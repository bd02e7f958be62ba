import COpenSSL

/// HKDF with SHA-256 (RFC 5869) from OpenSSL: every key the package uses is derived from a fleet secret this way, one
/// label (`info`) per purpose, so no two purposes ever share a key.
package enum HKDF {
    /// `length` bytes (at most 255 × 32) of output keying material from `key`, `salt` and `info`.
    package static func sha256(
        key: some Collection<UInt8>, salt: some Collection<UInt8>, info: some Collection<UInt8>, length: Int
    ) -> [UInt8] {
        precondition(length > 0 && length <= 255 * 32, "HKDF-SHA256 output must be 1...8160 bytes")
        var output = [UInt8](repeating: 0, count: length)
        let ok = withContiguousBytes(of: key) { key in
            withContiguousBytes(of: salt) { salt in
                withContiguousBytes(of: info) { info in
                    output.withUnsafeMutableBufferPointer { out in
                        ucs_hkdf_sha256(
                            salt.baseAddress, salt.count, key.baseAddress, key.count, info.baseAddress, info.count,
                            out.baseAddress, out.count)
                    }
                }
            }
        }
        precondition(ok == 1, "OpenSSL's HKDF-SHA256 failed: libcrypto is unusable")
        return output
    }

    /// A 32-byte key for `label` derived from `key` (no salt): the package's one way of deriving a purpose's key.
    package static func key(from key: some Collection<UInt8>, salt: [UInt8] = [], label: String) -> [UInt8] {
        sha256(key: key, salt: salt, info: Array(label.utf8), length: 32)
    }
}
