import COpenSSL
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The TLS client contexts of the process: one OpenSSL context per distinct TLS settings and version of the files
/// they name. A context holds the trusted CAs and the client's identity, so a reconnect (or a cluster's next node)
/// reuses it instead of reading and parsing the CA file again; a file changed on disk (a rotated CA, a renewed
/// certificate) is seen by its modification time, size and inode, and the next connection reads it anew.
enum RedisTLSContexts {
    /// The most contexts kept; past it the oldest is let go (sessions using it keep it alive until they close).
    static let capacity = 16

    /// What a context is made from: the settings that reach OpenSSL's context (the server name and host name check
    /// are per connection) and the stamps of the files it reads.
    struct Key: Hashable {
        var caFile: String?
        var caDirectory: String?
        var certificateFile: String?
        var keyFile: String?
        var verifiesCertificate: Bool
        var stamps: [FileStamp?]

        init(_ settings: RedisReplicationConfiguration.TLS) {
            caFile = settings.caFile
            caDirectory = settings.caDirectory
            certificateFile = settings.certificateFile
            keyFile = settings.keyFile
            verifiesCertificate = settings.verifiesCertificate
            stamps = [caFile, caDirectory, certificateFile, keyFile].map { $0.flatMap(FileStamp.init(path:)) }
        }
    }

    /// A file's version as the file system tells it, without reading it.
    struct FileStamp: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int

        init?(path: String) {
            var information = stat()
            guard stat(path, &information) == 0 else { return nil }
            device = UInt64(information.st_dev)
            inode = UInt64(information.st_ino)
            size = Int64(information.st_size)
            modifiedSeconds = Int(information.st_mtim.tv_sec)
            modifiedNanoseconds = Int(information.st_mtim.tv_nsec)
        }
    }

    private struct Cache {
        var contexts: [Key: SharedTLSContext] = [:]
        var order: [Key] = []
        /// How many contexts were made per CA file path (for tests: a reconnect must not read the file again).
        var madeForCAFile: [String: Int] = [:]
    }

    private static let cache = Mutex(Cache())

    /// A context for `settings`, with a reference the caller owns (release it with `SSL_CTX_free`).
    static func context(for settings: RedisReplicationConfiguration.TLS) throws(RedisReplicationError)
        -> OpaquePointer
    {
        let key = Key(settings)
        if let shared = cache.withLock({ $0.contexts[key] }) {
            return shared.retained()
        }
        // Made outside the lock (it reads files); two connections racing make two, and the cache keeps one.
        let made = SharedTLSContext(try makeContext(settings))
        return cache.withLock { cache in
            if let existing = cache.contexts[key] { return existing.retained() }
            cache.contexts[key] = made
            cache.order.append(key)
            if let caFile = key.caFile { cache.madeForCAFile[caFile, default: 0] += 1 }
            if cache.order.count > capacity {
                cache.contexts[cache.order.removeFirst()] = nil
            }
            return made.retained()
        }
    }

    /// How many contexts were made trusting the CA file at `path` (tests).
    static func madeCount(caFile path: String) -> Int {
        cache.withLock { $0.madeForCAFile[path] ?? 0 }
    }

    private static func makeContext(_ settings: RedisReplicationConfiguration.TLS) throws(RedisReplicationError)
        -> OpaquePointer
    {
        ERR_clear_error()
        guard let context = ucs_tls_context_new(settings.verifiesCertificate ? 1 : 0) else {
            throw RedisReplicationError(
                .tlsFailed, "OpenSSL could not create a TLS context.", underlying: RedisTLSSession.errorText())
        }
        guard ucs_tls_context_trust(context, settings.caFile, settings.caDirectory) == 1 else {
            SSL_CTX_free(context)
            throw RedisReplicationError(
                .tlsConfigurationInvalid, "The trusted CA file or directory could not be loaded.",
                underlying: RedisTLSSession.errorText())
        }
        if let certificate = settings.certificateFile, let key = settings.keyFile,
            ucs_tls_context_identity(context, certificate, key) != 1
        {
            SSL_CTX_free(context)
            // OpenSSL's text names the failing step (no such file, key mismatch), never the key's bytes.
            throw RedisReplicationError(
                .tlsConfigurationInvalid, "The TLS client certificate or its key could not be loaded.",
                underlying: RedisTLSSession.errorText())
        }
        return context
    }
}

/// One OpenSSL client context shared by every session made from the same settings.
///
/// `@unchecked Sendable`, proven: the pointer is set once and never changes; the context is configured completely
/// before it is shared and never modified after (sessions only call `SSL_new` on it, which OpenSSL allows from
/// several threads at once); its reference count is OpenSSL's own, updated atomically by `SSL_CTX_up_ref` and
/// `SSL_CTX_free`. The cache's reference is released in `deinit`, after which sessions still holding theirs keep it.
final class SharedTLSContext: @unchecked Sendable {
    private let context: OpaquePointer

    init(_ context: OpaquePointer) {
        self.context = context
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// The context with one more reference, for a session to release when it closes.
    func retained() -> OpaquePointer {
        SSL_CTX_up_ref(context)
        return context
    }
}
