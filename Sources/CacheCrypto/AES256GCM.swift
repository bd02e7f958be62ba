import COpenSSL

/// An AES-256-GCM key (96-bit nonces, 128-bit tags) from OpenSSL, expanded once and used from any thread.
///
/// The AEAD every sealed value and message uses: it encrypts, authenticates, and binds associated data (the key,
/// namespace and generation a value belongs to) without carrying it. Each seal or open runs on a keyed context taken
/// from a small pool (copied from the template when the pool is empty) and started over with its nonce: copying and
/// freeing a context cost more than sealing a short value.
package final class AES256GCMKey: @unchecked Sendable {
    // @unchecked: `template` is written once in init and never changed, and is only read (copied by the pools).
    private let template: OpaquePointer
    private let sealing: OpenSSLContextPool
    private let opening: OpenSSLContextPool

    package static let keyLength = 32
    package static let nonceLength = 12
    package static let tagLength = 16

    /// Expands `key`, which must be 32 bytes.
    package init(key: [UInt8]) {
        precondition(key.count == Self.keyLength, "AES-256-GCM needs a 32-byte key")
        guard let made = key.withUnsafeBufferPointer({ ucs_aes256gcm_new($0.baseAddress) }) else {
            fatalError("OpenSSL's AES-256-GCM is unavailable: libcrypto is unusable")
        }
        template = made
        sealing = OpenSSLContextPool(template: made, copy: { ucs_aes256gcm_copy($0) }, free: { ucs_aes256gcm_free($0) })
        opening = OpenSSLContextPool(template: made, copy: { ucs_aes256gcm_copy($0) }, free: { ucs_aes256gcm_free($0) })
    }

    deinit { ucs_aes256gcm_free(template) }

    /// Appends the ciphertext of `plaintext` and then its 16-byte tag to `output`. `nonce` must be 12 bytes and never
    /// repeat under this key.
    package func seal(
        _ plaintext: some Collection<UInt8>, nonce: [UInt8], authenticating associatedData: some Collection<UInt8>,
        appendingTo output: inout [UInt8]
    ) {
        precondition(nonce.count == Self.nonceLength, "AES-256-GCM needs a 12-byte nonce")
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: plaintext.count + Self.tagLength))
        let context = sealing.take()
        let ok = withContiguousBytes(of: plaintext) { plaintext in
            withContiguousBytes(of: associatedData) { aad in
                nonce.withUnsafeBufferPointer { nonce in
                    output.withUnsafeMutableBufferPointer { out in
                        let ciphertext = out.baseAddress! + start
                        return ucs_aes256gcm_seal_with(
                            context, nonce.baseAddress, aad.baseAddress, aad.count, plaintext.baseAddress,
                            plaintext.count, ciphertext, ciphertext + plaintext.count)
                    }
                }
            }
        }
        sealing.give(context, reusable: ok == 1)
        precondition(ok == 1, "OpenSSL's AES-256-GCM seal failed: libcrypto is unusable")
    }

    /// The plaintext of `sealed` (ciphertext followed by the tag), or nil when the tag does not authenticate it with
    /// `nonce` and `associatedData` (altered, moved, or sealed under another key).
    package func open(
        _ sealed: some Collection<UInt8>, nonce: some Collection<UInt8>,
        authenticating associatedData: some Collection<UInt8>
    ) -> [UInt8]? {
        withContiguousBytes(of: sealed) { sealed in
            withContiguousBytes(of: nonce) { nonce in
                withContiguousBytes(of: associatedData) { aad in
                    open(
                        UnsafeRawBufferPointer(sealed), nonce: UnsafeRawBufferPointer(nonce),
                        authenticating: UnsafeRawBufferPointer(aad))
                }
            }
        }
    }

    /// ``open(_:nonce:authenticating:)`` on bytes the caller holds in place: what a receiver uses for a message it
    /// reads where it arrived (no generic collection to walk, no copy of the input, the plaintext written into
    /// its array once, uninitialised until OpenSSL writes it).
    package func open(
        _ sealed: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        authenticating associatedData: UnsafeRawBufferPointer
    ) -> [UInt8]? {
        guard nonce.count == Self.nonceLength, sealed.count >= Self.tagLength, let input = sealed.baseAddress else {
            return nil
        }
        let length = sealed.count - Self.tagLength
        let bytes = input.assumingMemoryBound(to: UInt8.self)
        let context = opening.take()
        var ok: Int32 = 0
        // One byte at least, so OpenSSL always gets a real buffer; a refused open keeps none of what it wrote.
        let plaintext = [UInt8](unsafeUninitializedCapacity: max(length, 1)) { out, count in
            ok = ucs_aes256gcm_open_with(
                context, nonce.baseAddress?.assumingMemoryBound(to: UInt8.self),
                associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), associatedData.count, bytes, length,
                bytes + length, out.baseAddress)
            count = ok == 1 ? length : 0
        }
        // A refused open leaves the context mid-operation: freed, never reused.
        opening.give(context, reusable: ok == 1)
        return ok == 1 ? plaintext : nil
    }
}
