import CHiredis

/// A reply copied out of hiredis's `redisReply` tree, so it outlives `freeReplyObject`.
enum RedisReply: Equatable, Sendable {
    case string([UInt8])
    case status(String)
    case error(String)
    case integer(Int64)
    case array([RedisReply])
    case null

    /// Copies and frees a reply hiredis handed over.
    static func take(_ raw: UnsafeMutableRawPointer) -> RedisReply {
        defer { freeReplyObject(raw) }
        return copy(raw.assumingMemoryBound(to: redisReply.self))
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        let bytes: [UInt8] =
            value.str.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(value.len))) } ?? []
        switch value.type {
        case uch_reply_string: return .string(bytes)
        case uch_reply_status: return .status(String(decoding: bytes, as: UTF8.self))
        case uch_reply_error: return .error(String(decoding: bytes, as: UTF8.self))
        case uch_reply_integer: return .integer(Int64(value.integer))
        case uch_reply_array:
            guard let elements = value.element else { return .array([]) }
            var copied: [RedisReply] = []
            copied.reserveCapacity(Int(value.elements))
            for index in 0..<Int(value.elements) {
                if let element = elements[index] { copied.append(copy(element)) }
            }
            return .array(copied)
        default: return .null
        }
    }

    /// A string or status reply as text (for matching `message`, `pong`, `OK`).
    var text: String? {
        switch self {
        case .string(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }
}
