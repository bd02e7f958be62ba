import CHiredis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection to Redis, owned by the event-loop thread (or a test): the socket (plain or TLS) is
/// ``RedisSocket``; commands are formatted here as RESP (what hiredis's `redisFormatCommandArgv` writes) and replies
/// parsed by a hiredis `redisReader` whose arrays are capped (``maxArrayElements``), so an absurd announced count is
/// a protocol error, not an allocation of gigabytes. Blocking calls (``command(_:)``) are bounded by the command timeout.
final class RedisConnection {
    /// The most elements one reply array may announce. The largest reply the package asks for is a pub/sub message
    /// (3) or a script's; anything near this is a hostile or broken server.
    static let maxArrayElements: Int32 = 1 << 20
    /// The most bytes of one reply still arriving (a bulk string); beyond it the connection fails. Values are capped
    /// far lower (RedisSecondLevelConfiguration.maxValueBytes); this bounds what a server can make a replica hold.
    static let maxBufferedReplyBytes = 64 << 20

    private let socket: RedisSocket
    private let reader: UnsafeMutablePointer<redisReader>
    private let commandTimeout: Duration
    /// Formatted commands not yet fully written, and how much of the first chunk was.
    private var output: [UInt8] = []
    private var written = 0
    /// Complete replies parsed while ``command(_:)`` waited for its own (e.g. a message right after SUBSCRIBE's
    /// reply): handed out by the next ``readAvailable()``.
    private var parsedAhead: [RedisReply] = []
    /// Where socket reads land before the reader takes them (one TLS record's worth).
    private let inputBuffer: UnsafeMutableRawBufferPointer

    /// Connects to the configured host, bounds every blocking call by `commandTimeout`, and authenticates when a
    /// password is configured.
    convenience init(_ configuration: RedisReplicationConfiguration) throws(RedisReplicationError) {
        try self.init(configuration, host: configuration.host, port: configuration.port)
    }

    /// Connects to `host:port` (one node of the configured deployment) with the configuration's credentials, TLS
    /// settings (the server name defaults to `host`) and timeouts.
    init(_ configuration: RedisReplicationConfiguration, host: String, port: Int) throws(RedisReplicationError) {
        try configuration.checkCredentials()
        guard let reader = uch_capped_reader_create(Self.maxArrayElements) else {
            throw RedisReplicationError(.connectFailed, "hiredis could not allocate a reply reader.")
        }
        do {
            socket = try RedisSocket(
                host: host, port: port, connectTimeout: configuration.connectTimeout, tls: configuration.tls)
        } catch {
            uch_capped_reader_free(reader)
            throw error
        }
        self.reader = reader
        inputBuffer = .allocate(byteCount: 16 * 1024, alignment: 1)
        commandTimeout = configuration.commandTimeout
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

    deinit {
        uch_capped_reader_free(reader)
        inputBuffer.deallocate()
    }

    var fileDescriptor: Int32 { socket.fileDescriptor }

    /// Whether replies or decrypted bytes wait that a poll() on ``fileDescriptor`` would not report: call
    /// ``readAvailable()`` without waiting when true.
    var hasBufferedInput: Bool { !parsedAhead.isEmpty || socket.hasBufferedInput }

    /// Sends one command and waits (bounded by the command timeout) for its reply: for a connection's setup, before
    /// a loop sends without waiting.
    func command(_ arguments: [[UInt8]]) throws(RedisReplicationError) -> RedisReply {
        try append(arguments)
        let deadline = ContinuousClock.now + commandTimeout
        while try !flush() {
            guard RedisSocket.wait(socket.fileDescriptor, for: Int16(POLLOUT), until: deadline) else {
                throw RedisReplicationError(.timedOut, "Redis did not take a command within \(commandTimeout).")
            }
        }
        // Replies parsed earlier come first, as hiredis's own blocking read would return them.
        if !parsedAhead.isEmpty { return parsedAhead.removeFirst() }
        while true {
            if let reply = try nextReply() {
                parsedAhead.append(contentsOf: try parseAll())
                return reply
            }
            guard
                socket.hasBufferedInput || RedisSocket.wait(socket.fileDescriptor, for: Int16(POLLIN), until: deadline)
            else {
                throw RedisReplicationError(.timedOut, "Redis did not answer within \(commandTimeout).")
            }
            try receiveAvailable()
        }
    }

    /// Formats a command into the output buffer (``RedisRESPFormat``); ``flush()`` sends it. Arguments are
    /// binary-safe.
    func append(_ arguments: [[UInt8]]) throws(RedisReplicationError) {
        // One access to the buffer for the whole command: each append to a class's array is an exclusivity check.
        RedisRESPFormat.appendCommand(arguments, to: &output)
    }

    /// Commands the caller writes as RESP straight into the output buffer (``RedisRESPFormat``): a routed command's
    /// request formatted when it was made, or a second-level read's commands written in place on every L2 hit.
    func append(formatting write: (inout [UInt8]) -> Void) {
        write(&output)
    }

    /// Writes what the socket takes now. Returns true when the output buffer is empty.
    func flush() throws(RedisReplicationError) -> Bool {
        while written < output.count {
            let attempt = output.withUnsafeBytes { all in
                Result { () throws(RedisReplicationError) in
                    try socket.write(UnsafeRawBufferPointer(rebasing: all[written...]))
                }
            }
            let sent = try attempt.get()
            guard sent > 0 else { break }
            written += sent
        }
        if written == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            written = 0
            return true
        }
        if written >= 64 * 1024 {
            output.removeFirst(written)
            written = 0
        }
        return false
    }

    /// Reads what the socket holds now and returns every complete reply.
    func readAvailable() throws(RedisReplicationError) -> [RedisReply] {
        try receiveAvailable()
        guard !parsedAhead.isEmpty else { return try parseAll() }
        let ahead = parsedAhead
        parsedAhead.removeAll()
        return ahead + (try parseAll())
    }

    /// Reads what the socket holds now and hands `visit` every complete reply where hiredis parsed it, freeing each
    /// when `visit` returns: for a caller that keeps one field of a reply (the subscriber, a message's payload), so
    /// no reply is copied whole. Replies parsed while ``command(_:)`` waited are not among them: see
    /// ``takeParsedAhead()``.
    func readAvailable(visiting visit: (UnsafePointer<redisReply>) -> Void) throws(RedisReplicationError) {
        try receiveAvailable()
        while true {
            var raw: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &raw) == uch_ok else { throw readerError() }
            guard let raw else { return }
            defer { freeReplyObject(raw) }
            visit(UnsafePointer(raw.assumingMemoryBound(to: redisReply.self)))
        }
    }

    /// The replies parsed while ``command(_:)`` waited for its own, oldest first (almost always none); they come
    /// before any reply ``readAvailable(visiting:)`` hands out.
    func takeParsedAhead() -> [RedisReply] {
        guard !parsedAhead.isEmpty else { return [] }
        defer { parsedAhead.removeAll() }
        return parsedAhead
    }

    /// Feeds the reader everything the socket (or TLS) holds now. A read that did not fill the buffer emptied the
    /// socket, so it stops there instead of asking again only to hear it would block (one system call less per
    /// reply); whatever arrives later makes the descriptor readable again for the next poll.
    private func receiveAvailable() throws(RedisReplicationError) {
        while true {
            guard let got = try socket.read(into: inputBuffer) else { return }
            let fed = redisReaderFeed(reader, inputBuffer.baseAddress?.assumingMemoryBound(to: CChar.self), got)
            guard fed == uch_ok else { throw readerError() }
            if uch_reader_buffered(reader) > Self.maxBufferedReplyBytes {
                throw RedisReplicationError(
                    .protocolError, "Redis sent a reply larger than \(Self.maxBufferedReplyBytes) bytes.")
            }
            if got < inputBuffer.count, !socket.hasBufferedInput { return }
        }
    }

    private func parseAll() throws(RedisReplicationError) -> [RedisReply] {
        var replies: [RedisReply] = []
        while let reply = try nextReply() {
            // A second-level read's three replies without growing the array on the way (none: no allocation).
            if replies.isEmpty { replies.reserveCapacity(4) }
            replies.append(reply)
        }
        return replies
    }

    private func nextReply() throws(RedisReplicationError) -> RedisReply? {
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == uch_ok else { throw readerError() }
        return raw.map(RedisReply.take)
    }

    private func readerError() -> RedisReplicationError {
        if uch_reader_error(reader) == uch_reader_oom {
            return RedisReplicationError(
                .protocolError,
                "Redis announced a reply array beyond \(Self.maxArrayElements) elements (or memory ran out).")
        }
        return RedisReplicationError(
            .protocolError, "Redis sent bytes that are not RESP.",
            underlying: String(cString: uch_reader_error_text(reader)))
    }
}

extension Duration {
    /// Whole milliseconds, at least 1.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
