import COpenSSL

/// An HMAC-SHA256 key, keyed once in OpenSSL and used from any thread.
///
/// Keyed hashes name sessions, second-level entries and tags without revealing what they name.
package final class HMACKey: @unchecked Sendable {
    // @unchecked: `template` is written once in init and never changed; every code is computed on a duplicate made by
    // `EVP_MAC_CTX_dup`, which only reads the template, so concurrent use never mutates shared state.
    private let template: OpaquePointer

    /// Keys the template with `key`: not empty, any length (RFC 2104 hashes keys longer than a block).
    package init(key: some Collection<UInt8>) {
        precondition(!key.isEmpty, "an HMAC key is never empty")
        let made = withContiguousBytes(of: key) { buffer in ucs_hmac_sha256_new(buffer.baseAddress, buffer.count) }
        guard let made else { fatalError("OpenSSL's HMAC-SHA256 is unavailable: libcrypto is unusable") }
        template = made
    }

    deinit { ucs_hmac_free(template) }

    /// HMAC-SHA256 of `message`: 32 bytes.
    package func code(for message: some Collection<UInt8>) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        let ok = withContiguousBytes(of: message) { buffer in
            code.withUnsafeMutableBufferPointer { out in
                ucs_hmac_sha256(template, buffer.baseAddress, buffer.count, out.baseAddress)
            }
        }
        precondition(ok == 1, "OpenSSL's HMAC-SHA256 failed: libcrypto is unusable")
        return code
    }

    /// HMAC-SHA256 of a one-shot `message` under `key`.
    package static func code(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        HMACKey(key: key).code(for: message)
    }

}
