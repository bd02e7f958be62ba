import CHiredis
import COpenSSL
import Foundation
import RedisReplication

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The floor an L2 hit is measured against: the bench's own Redis client, as bare as a client gets. One blocking
/// socket (TCP_NODELAY; TLS through OpenSSL with the store's verification when the configuration has TLS), commands
/// formatted once by hiredis, replies parsed by a hiredis reader, on the caller's thread: no queue, no other thread,
/// no script. It speaks to the same Redis as the store, over the same transport.
final class BareRedisClient {
    private let fd: Int32
    private let reader: UnsafeMutablePointer<redisReader>
    private let buffer: UnsafeMutableRawBufferPointer
    private var tls: (context: OpaquePointer, connection: OpaquePointer, method: OpaquePointer)?

    init(_ configuration: RedisReplicationConfiguration) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(configuration.host, String(configuration.port), &hints, &list) == 0, let first = list else {
            throw BenchError("the bare client could not resolve \(configuration.host)")
        }
        defer { freeaddrinfo(list) }
        var connected: Int32 = -1
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let address = cursor, connected < 0 {
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            if fd >= 0, connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                connected = fd
            } else if fd >= 0 {
                close(fd)
            }
            cursor = address.pointee.ai_next
        }
        guard connected >= 0 else { throw BenchError("the bare client could not connect to Redis") }
        var on: Int32 = 1
        _ = setsockopt(connected, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        fd = connected
        guard let reader = redisReaderCreate() else { throw BenchError("hiredis could not make a reader") }
        self.reader = reader
        buffer = .allocate(byteCount: 64 * 1024, alignment: 1)
        if let settings = configuration.tls { try handshake(settings, host: configuration.host) }
        if let password = configuration.password {
            let reply = try command(["AUTH"] + (configuration.username.map { [$0] } ?? []) + [password])
            guard reply == "OK" else { throw BenchError("the bare client's AUTH was refused") }
        }
    }

    deinit {
        if let tls {
            SSL_free(tls.connection)
            BIO_meth_free(tls.method)
            SSL_CTX_free(tls.context)
        }
        close(fd)
        redisReaderFree(reader)
        buffer.deallocate()
    }

    /// The command formatted by hiredis once, for ``roundTrip(_:)``.
    static func format(_ arguments: [String]) -> [UInt8] {
        var strings = arguments.map { strdup($0) }
        defer { for string in strings { free(string) } }
        var lengths = arguments.map { $0.utf8.count }
        var target: UnsafeMutablePointer<CChar>?
        let length = strings.withUnsafeMutableBufferPointer { argv in
            argv.withMemoryRebound(to: UnsafePointer<CChar>?.self) { argv in
                uch_format_command(&target, Int32(arguments.count), argv.baseAddress, &lengths)
            }
        }
        guard length > 0, let target else { return [] }
        defer { redisFreeCommand(target) }
        return target.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// Sends a formatted command and waits for its reply; returns the reply's string (a bulk or a status) byte count,
    /// or -1 for a nil.
    @discardableResult
    func roundTrip(_ formatted: [UInt8]) throws -> Int {
        try send(formatted)
        let reply = try receive()
        defer { freeReplyObject(reply) }
        let typed = reply.assumingMemoryBound(to: redisReply.self)
        if typed.pointee.type == uch_reply_error { throw BenchError("Redis answered the bare client with an error") }
        return typed.pointee.type == uch_reply_string || typed.pointee.type == uch_reply_status ? typed.pointee.len : -1
    }

    /// One round trip whose string reply is copied out: what a client that decodes the value has to do.
    func fetch(_ formatted: [UInt8]) throws -> Data {
        try send(formatted)
        let reply = try receive()
        defer { freeReplyObject(reply) }
        let typed = reply.assumingMemoryBound(to: redisReply.self)
        guard typed.pointee.type == uch_reply_string, let bytes = typed.pointee.str else {
            throw BenchError("the bare GET found no value")
        }
        return Data(bytes: bytes, count: typed.pointee.len)
    }

    /// One command's reply as text (for set-up: AUTH, SET).
    func command(_ arguments: [String]) throws -> String {
        try send(Self.format(arguments))
        let reply = try receive()
        defer { freeReplyObject(reply) }
        let typed = reply.assumingMemoryBound(to: redisReply.self)
        guard let text = typed.pointee.str else { return "" }
        return String(cString: text)
    }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { all -> Int in
                let rest = UnsafeRawBufferPointer(rebasing: all[offset...])
                if let tls { return Int(SSL_write(tls.connection, rest.baseAddress, Int32(rest.count))) }
                return Glibc.send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw BenchError("the bare client could not write to Redis") }
            offset += sent
        }
    }

    private func receive() throws -> UnsafeMutableRawPointer {
        while true {
            var reply: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &reply) == uch_ok else { throw BenchError("Redis sent bytes not RESP") }
            if let reply { return reply }
            let got: Int
            if let tls {
                got = Int(SSL_read(tls.connection, buffer.baseAddress, Int32(buffer.count)))
            } else {
                got = recv(fd, buffer.baseAddress, buffer.count, 0)
            }
            guard got > 0 else { throw BenchError("the bare client's connection to Redis ended") }
            _ = redisReaderFeed(reader, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), got)
        }
    }

    /// A blocking TLS handshake verified as the store verifies (the CA, the host name).
    private func handshake(_ settings: RedisReplicationConfiguration.TLS, host: String) throws {
        guard let context = ucs_tls_context_new(settings.verifiesCertificate ? 1 : 0),
            ucs_tls_context_trust(context, settings.caFile, settings.caDirectory) == 1
        else { throw BenchError("the bare client could not set up TLS") }
        var method: OpaquePointer?
        guard
            let connection = ucs_tls_connection_new(
                context, &method, fd, settings.serverName ?? host, settings.verifiesHostName ? 1 : 0),
            let method
        else {
            SSL_CTX_free(context)
            throw BenchError("the bare client could not set up TLS")
        }
        tls = (context, connection, method)
        guard SSL_connect(connection) == 1 else { throw BenchError("the bare client's TLS handshake failed") }
    }
}
