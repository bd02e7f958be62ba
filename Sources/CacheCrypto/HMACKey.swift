import COpenSSL
import Synchronization

/// An HMAC-SHA256 key, keyed once in OpenSSL and used from any thread.
///
/// Keyed hashes name sessions, second-level entries and tags without revealing what they name. Each code is
/// computed on a keyed context taken from a small pool (made from the template when the pool is empty, kept for the
/// next code after): OpenSSL's duplicate and free of a context cost more than the hash of a short message.
package final class HMACKey: @unchecked Sendable {
    // @unchecked: `template` is written once in init and never changed, and is only read (duplicated); a pooled
    // context is used by one thread at a time: taken out of `spare` under its lock, used, and put back under it.
    private let template: OpaquePointer
    private let spare = Mutex<[Context]>([])
    /// A keyed context out of the pool. `@unchecked Sendable`: it moves between threads only through `spare`'s lock,
    /// and the thread that took it out is the only one using it until it is put back.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Contexts kept for reuse beyond which a returned one is freed (as many as threads hash at once, usually).
    private static let spareLimit = 16

    /// Keys the template with `key`: not empty, any length (RFC 2104 hashes keys longer than a block).
    package init(key: some Collection<UInt8>) {
        precondition(!key.isEmpty, "an HMAC key is never empty")
        let made = withContiguousBytes(of: key) { buffer in ucs_hmac_sha256_new(buffer.baseAddress, buffer.count) }
        guard let made else { fatalError("OpenSSL's HMAC-SHA256 is unavailable: libcrypto is unusable") }
        template = made
    }

    deinit {
        ucs_hmac_free(template)
        for context in spare.withLock({ $0 }) { ucs_hmac_free(context.pointer) }
    }

    /// HMAC-SHA256 of `message`: 32 bytes.
    package func code(for message: some Collection<UInt8>) -> [UInt8] {
        guard let context = spare.withLock({ $0.popLast()?.pointer }) ?? ucs_hmac_copy(template) else {
            fatalError("OpenSSL could not copy an HMAC context: libcrypto is unusable")
        }
        var code = [UInt8](repeating: 0, count: 32)
        let ok = withContiguousBytes(of: message) { buffer in
            code.withUnsafeMutableBufferPointer { out in
                ucs_hmac_sha256_again(context, buffer.baseAddress, buffer.count, out.baseAddress)
            }
        }
        precondition(ok == 1, "OpenSSL's HMAC-SHA256 failed: libcrypto is unusable")
        let kept = spare.withLock { spare in
            guard spare.count < Self.spareLimit else { return false }
            spare.append(Context(pointer: context))
            return true
        }
        if !kept { ucs_hmac_free(context) }
        return code
    }

    /// HMAC-SHA256 of a one-shot `message` under `key`.
    package static func code(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        HMACKey(key: key).code(for: message)
    }

}
