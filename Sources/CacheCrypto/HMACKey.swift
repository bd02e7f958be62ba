import COpenSSL

/// An HMAC-SHA256 key, keyed once in OpenSSL and used from any thread.
///
/// Keyed hashes name sessions, second-level entries and tags without revealing what they name. Each code is
/// computed on a keyed context taken from a small pool (made from the template when the pool is empty, kept for the
/// next code after): OpenSSL's duplicate and free of a context cost more than the hash of a short message.
package final class HMACKey: @unchecked Sendable {
    // @unchecked: `template` is written once in init and never changed, and is only read (copied by `contexts`).
    private let template: OpaquePointer
    private let contexts: OpenSSLContextPool

    /// Keys the template with `key`: not empty, any length (RFC 2104 hashes keys longer than a block).
    package init(key: some Collection<UInt8>) {
        precondition(!key.isEmpty, "an HMAC key is never empty")
        let made = withContiguousBytes(of: key) { buffer in ucs_hmac_sha256_new(buffer.baseAddress, buffer.count) }
        guard let made else { fatalError("OpenSSL's HMAC-SHA256 is unavailable: libcrypto is unusable") }
        template = made
        contexts = OpenSSLContextPool(template: made, copy: { ucs_hmac_copy($0) }, free: { ucs_hmac_free($0) })
    }

    deinit { ucs_hmac_free(template) }

    /// HMAC-SHA256 of `message`: 32 bytes.
    package func code(for message: some Collection<UInt8>) -> [UInt8] {
        withContiguousBytes(of: message) { code(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// HMAC-SHA256 of an array: the names of every second-level read are made with it, so no generic collection.
    package func code(for message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { code(bytes: $0) }
    }

    /// HMAC-SHA256 of bytes the caller holds in place.
    package func code(bytes message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            code(bytes: message, into: UnsafeMutableRawBufferPointer(out))
            count = 32
        }
    }

    /// HMAC-SHA256 of `message` written into the first 32 bytes of `code`: for a caller that keeps only part of
    /// it, or keeps it on the stack.
    package func code(bytes message: UnsafeRawBufferPointer, into code: UnsafeMutableRawBufferPointer) {
        precondition(code.count >= 32, "an HMAC-SHA256 code is 32 bytes")
        let context = contexts.take()
        let ok = ucs_hmac_sha256_again(
            context, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
            code.baseAddress?.assumingMemoryBound(to: UInt8.self))
        precondition(ok == 1, "OpenSSL's HMAC-SHA256 failed: libcrypto is unusable")
        contexts.give(context)
    }

    /// HMAC-SHA256 of a one-shot `message` under `key`.
    package static func code(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        HMACKey(key: key).code(for: message)
    }

}
