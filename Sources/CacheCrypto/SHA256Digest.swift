import COpenSSL

/// SHA-256 from OpenSSL's libcrypto: the digest the package names things by (persisted-query hashes, fingerprints).
package enum SHA256Digest {
    /// The 32-byte digest of `bytes`.
    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = withContiguousBytes(of: bytes) { buffer in
            digest.withUnsafeMutableBufferPointer { out in
                ucs_sha256(buffer.baseAddress, buffer.count, out.baseAddress)
            }
        }
        precondition(ok == 1, "OpenSSL's SHA-256 failed: libcrypto is unusable")
        return digest
    }
}

/// Calls `body` with the bytes of `collection` contiguous in memory (copying only when they are not already).
func withContiguousBytes<Result>(
    of collection: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
) -> Result {
    if let result = collection.withContiguousStorageIfAvailable({ body($0) }) { return result }
    return Array(collection).withUnsafeBufferPointer { body($0) }
}
