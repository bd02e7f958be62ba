import COpenSSL

/// Randomness and comparison from OpenSSL: sender ids, nonce prefixes and keys come from `RAND_bytes`, tags are
/// compared with `CRYPTO_memcmp`.
package enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG.
    package static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { ucs_random_bytes($0.baseAddress, $0.count) }
        precondition(ok == 1, "OpenSSL's RAND_bytes failed: no secure randomness")
        return bytes
    }
}

/// Whether `left` and `right` hold the same bytes, in time that depends only on their length.
package func constantTimeEquals(_ left: some Collection<UInt8>, _ right: some Collection<UInt8>) -> Bool {
    guard left.count == right.count else { return false }
    guard !left.isEmpty else { return true }
    return withContiguousBytes(of: left) { left in
        withContiguousBytes(of: right) { right in
            ucs_constant_time_compare(left.baseAddress, right.baseAddress, left.count) == 0
        }
    }
}
