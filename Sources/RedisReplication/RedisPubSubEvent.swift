import CHiredis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a reply on the subscriber connection says, read where hiredis parsed it: a message's payload is the only
/// part kept, copied once, and nothing else of the reply is copied (no ``RedisReply`` tree, no `String` for the
/// kind, none for the channel). A replica receives one reply a message, so this is on every message's path.
///
/// The reading is the one ``RedisLink`` always made of a ``RedisReply``: an array whose first element (a bulk or
/// status string) is `message`, with three elements and a bulk string third, is a message; one whose first element
/// is `pong` answers the subscriber's PING; anything else (the subscription's confirmation) is passed over.
enum RedisPubSubEvent: Equatable {
    case message([UInt8])
    case pong
    case other

    private static let messageKind: [UInt8] = Array("message".utf8)
    private static let pongKind: [UInt8] = Array("pong".utf8)

    /// The event a reply hiredis parsed is, read in place (the reply stays the caller's to free).
    init(_ reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        guard value.type == uch_reply_array, value.elements >= 1, let elements = value.element,
            let first = elements[0]
        else {
            self = .other
            return
        }
        let kind = first.pointee
        guard kind.type == uch_reply_string || kind.type == uch_reply_status else {
            self = .other
            return
        }
        let text = UnsafeRawBufferPointer(start: kind.str, count: kind.str == nil ? 0 : Int(kind.len))
        if value.elements == 3, Self.equals(text, Self.messageKind), let third = elements[2],
            third.pointee.type == uch_reply_string
        {
            let payload = third.pointee
            self = .message(
                payload.str.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(payload.len))) } ?? [])
        } else if Self.equals(text, Self.pongKind) {
            self = .pong
        } else {
            self = .other
        }
    }

    /// The event a reply already copied out of hiredis is (one parsed while a command waited for its own reply).
    init(_ reply: RedisReply) {
        guard case .array(let items) = reply, let kind = items.first?.text else {
            self = .other
            return
        }
        if kind == "message", items.count == 3, case .string(let payload) = items[2] {
            self = .message(payload)
        } else if kind == "pong" {
            self = .pong
        } else {
            self = .other
        }
    }

    private static func equals(_ text: UnsafeRawBufferPointer, _ word: [UInt8]) -> Bool {
        guard text.count == word.count, let text = text.baseAddress else { return false }
        return word.withUnsafeBytes { word in word.baseAddress.map { memcmp(text, $0, word.count) == 0 } ?? true }
    }
}
