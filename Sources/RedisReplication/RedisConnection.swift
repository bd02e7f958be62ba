import CHiredis

/// One hiredis connection, owned by the event-loop thread (or a test): blocking while it is set up, then switched
/// to non-blocking I/O for the loop's poll().
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>

    /// Connects, bounds every blocking call by `commandTimeout`, and authenticates when a password is configured.
    init(_ configuration: RedisReplicationConfiguration) throws(RedisReplicationError) {
        try configuration.checkCredentials()
        guard
            let context = uch_connect(
                configuration.host, Int32(configuration.port), configuration.connectTimeout.milliseconds)
        else {
            throw RedisReplicationError(.connectFailed, "hiredis could not allocate a connection.")
        }
        guard context.pointee.err == 0 else {
            let detail = String(cString: uch_error_text(context))
            redisFree(context)
            throw RedisReplicationError(
                .connectFailed, "Could not connect to Redis at \(configuration.host):\(configuration.port).",
                underlying: detail)
        }
        self.context = context
        _ = uch_set_timeout(context, configuration.commandTimeout.milliseconds)
        guard let password = configuration.password else { return }
        var arguments = [Array("AUTH".utf8)]
        if let user = configuration.username { arguments.append(Array(user.utf8)) }
        arguments.append(Array(password.utf8))
        let reply = try command(arguments)
        guard reply == .status("OK") else {
            // The server's text ("WRONGPASS …") never contains the password; keep it for the operator.
            let detail: String? = if case .error(let text) = reply { text } else { nil }
            throw RedisReplicationError(.authenticationFailed, "Redis rejected AUTH.", underlying: detail)
        }
    }

    deinit { redisFree(context) }

    var fileDescriptor: Int32 { context.pointee.fd }

    /// Sends one command and waits (bounded by the command timeout) for its reply. Only before ``makeNonBlocking()``.
    func command(_ arguments: [[UInt8]]) throws(RedisReplicationError) -> RedisReply {
        try append(arguments)
        var raw: UnsafeMutableRawPointer?
        guard redisGetReply(context, &raw) == uch_ok, let raw else { throw lostError("no reply") }
        return RedisReply.take(raw)
    }

    func makeNonBlocking() throws(RedisReplicationError) {
        guard uch_set_nonblocking(context) == uch_ok else { throw lostError("could not switch to non-blocking I/O") }
    }

    /// Queues a command in hiredis's output buffer; ``flush()`` sends it. Arguments are binary-safe.
    func append(_ arguments: [[UInt8]]) throws(RedisReplicationError) {
        let lengths = arguments.map(\.count)
        // One contiguous buffer (plus a byte, so it is never empty) and a pointer into it per argument.
        let storage = Array(arguments.joined()) + [0]
        let status = storage.withUnsafeBufferPointer { buffer in
            var offset = 0
            var pointers: [UnsafePointer<CChar>?] = lengths.map { length in
                defer { offset += length }
                return UnsafeRawPointer(buffer.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
            }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { argvlen in
                    redisAppendCommandArgv(context, Int32(arguments.count), argv.baseAddress, argvlen.baseAddress)
                }
            }
        }
        guard status == uch_ok else { throw lostError("could not queue a command") }
    }

    /// Writes what the socket takes now. Returns true when hiredis's output buffer is empty.
    func flush() throws(RedisReplicationError) -> Bool {
        var done: Int32 = 0
        guard redisBufferWrite(context, &done) == uch_ok else { throw lostError("write failed") }
        return done != 0
    }

    /// Reads what the socket holds now and returns every complete reply.
    func readAvailable() throws(RedisReplicationError) -> [RedisReply] {
        guard redisBufferRead(context) == uch_ok else { throw lostError("read failed") }
        var replies: [RedisReply] = []
        while true {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReplyFromReader(context, &raw) == uch_ok else { throw lostError("protocol error") }
            guard let raw else { return replies }
            replies.append(RedisReply.take(raw))
        }
    }

    private func lostError(_ what: String) -> RedisReplicationError {
        let detail = context.pointee.err == 0 ? nil : String(cString: uch_error_text(context))
        return RedisReplicationError(.connectionLost, "The Redis connection failed: \(what).", underlying: detail)
    }
}

extension Duration {
    /// Whole milliseconds, at least 1.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
