import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One TLS client session (OpenSSL's libssl) over a connected non-blocking socket: the handshake, bounded by its
/// timeout, with OpenSSL's chain and host name verification, then record reads and writes.
///
/// poll() readiness is the socket's, not TLS's: ``read(into:)`` is called until it returns nil (OpenSSL wants
/// more bytes), which leaves no decrypted byte behind; a write can need a read first (a TLS 1.3 key update), which
/// shows as a write that took nothing and is retried on the next turn.
final class RedisTLSSession {
    private let context: OpaquePointer
    private let connection: OpaquePointer
    private let method: OpaquePointer

    init(fileDescriptor fd: Int32, host: String, settings: RedisReplicationConfiguration.TLS)
        throws(RedisReplicationError)
    {
        try settings.check()
        // Shared with every session of the same settings and files (the CA file is read once); this one's reference.
        let context = try RedisTLSContexts.context(for: settings)
        ERR_clear_error()
        var method: OpaquePointer?
        let serverName = settings.serverName ?? host
        guard
            let connection = ucs_tls_connection_new(
                context, &method, fd, serverName, settings.verifiesHostName ? 1 : 0),
            let method
        else {
            SSL_CTX_free(context)
            throw RedisReplicationError(
                .tlsConfigurationInvalid, "OpenSSL refused the TLS server name \(serverName).",
                underlying: Self.errorText())
        }
        self.context = context
        self.connection = connection
        self.method = method
        do {
            try handshake(fd: fd, serverName: serverName, timeout: settings.handshakeTimeout)
        } catch {
            close()
            throw error
        }
    }

    /// Frees the session (the socket is the caller's).
    func close() {
        SSL_free(connection)
        BIO_meth_free(method)
        SSL_CTX_free(context)
    }

    var hasBufferedInput: Bool { SSL_pending(connection) > 0 }

    /// Encrypts and writes what the socket takes now; 0 when it takes nothing now (retry with the same bytes).
    func write(_ bytes: UnsafeRawBufferPointer) throws(RedisReplicationError) -> Int {
        ERR_clear_error()
        let written = SSL_write(connection, bytes.baseAddress, Int32(clamping: bytes.count))
        if written > 0 { return Int(written) }
        let reason = SSL_get_error(connection, written)
        if reason == ucs_tls_want_write || reason == ucs_tls_want_read { return 0 }
        if reason == SSL_ERROR_SYSCALL, let refusal = alertBeforeReset() { throw refusal }
        throw failure(reason, "Writing to Redis over TLS failed.")
    }

    /// Decrypted bytes available now; nil when OpenSSL needs more from the socket.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RedisReplicationError) -> Int? {
        ERR_clear_error()
        let got = SSL_read(connection, buffer.baseAddress, Int32(clamping: buffer.count))
        if got > 0 { return Int(got) }
        let reason = SSL_get_error(connection, got)
        if reason == ucs_tls_want_read || reason == ucs_tls_want_write { return nil }
        throw failure(reason, "Reading from Redis over TLS failed.")
    }

    /// A server that refuses the client after the handshake (TLS 1.3 checks the client's certificate then) sends an
    /// alert and closes; a write racing the close sees only the reset. The alert may still be in the socket's queue:
    /// reading it names the refusal.
    private func alertBeforeReset() -> RedisReplicationError? {
        var probe: UInt8 = 0
        ERR_clear_error()
        let got = SSL_read(connection, &probe, 1)
        let reason = SSL_get_error(connection, got)
        guard got <= 0, reason == SSL_ERROR_SSL else {
            ERR_clear_error()
            return nil
        }
        return failure(reason, "Redis refused the TLS connection.")
    }

    private func handshake(fd: Int32, serverName: String, timeout: Duration) throws(RedisReplicationError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            ERR_clear_error()
            let result = SSL_connect(connection)
            if result == 1 { return }
            let reason = SSL_get_error(connection, result)
            let events: Int16
            if reason == ucs_tls_want_read {
                events = Int16(POLLIN)
            } else if reason == ucs_tls_want_write {
                events = Int16(POLLOUT)
            } else {
                throw handshakeFailure(reason, serverName: serverName)
            }
            guard RedisSocket.wait(fd, for: events, until: deadline) else {
                throw RedisReplicationError(
                    .tlsHandshakeTimedOut, "The TLS handshake with Redis did not finish within \(timeout).")
            }
        }
    }

    private func handshakeFailure(_ reason: Int32, serverName: String) -> RedisReplicationError {
        let verdict = SSL_get_verify_result(connection)
        guard verdict != ucs_tls_verify_ok else {
            return failure(reason, "The TLS handshake with Redis failed.")
        }
        let text = String(cString: X509_verify_cert_error_string(verdict))
        ERR_clear_error()
        switch verdict {
        case ucs_tls_verify_host_mismatch, ucs_tls_verify_ip_mismatch:
            return RedisReplicationError(
                .tlsHostNameMismatch, "The Redis server's certificate does not name \(serverName).", underlying: text)
        case ucs_tls_verify_expired, ucs_tls_verify_not_yet_valid:
            return RedisReplicationError(
                .tlsCertificateExpired, "The Redis server's certificate is expired or not yet valid.",
                underlying: text)
        default:
            return RedisReplicationError(
                .tlsCertificateUntrusted, "The Redis server's certificate is not issued by a trusted CA.",
                underlying: text)
        }
    }

    private func failure(_ reason: Int32, _ message: String) -> RedisReplicationError {
        let text = Self.errorText()
        if reason == ucs_tls_zero_return {
            return RedisReplicationError(.connectionLost, "Redis closed the TLS connection.")
        }
        if reason == SSL_ERROR_SYSCALL {
            let detail = text.isEmpty ? (errno == 0 ? "connection closed" : RedisSocket.systemError()) : text
            return RedisReplicationError(.connectionLost, message, underlying: detail)
        }
        // An alert from the server (e.g. a client certificate required) or a protocol failure.
        return RedisReplicationError(.tlsFailed, message, underlying: text.isEmpty ? nil : text)
    }

    /// OpenSSL's oldest queued error as text (library, function, reason; never key material), clearing the queue.
    static func errorText() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = ucs_tls_error_text(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
