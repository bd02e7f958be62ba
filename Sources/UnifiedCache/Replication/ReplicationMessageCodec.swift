import Foundation

/// The plaintext of a sealed message (format v3): a small binary encoding, several times cheaper than JSON.
///
/// `session: flag (1) [string] | kind (1) | the kind's fields`. A string is a 4-byte big-endian length and UTF-8
/// bytes; a list is a 4-byte count and its items; an optional is a flag byte (0 or 1) and the value. The decoder is
/// total: every length is checked against what is left, invalid UTF-8, an unknown kind or flag, and trailing bytes
/// make it return nil, and it never traps.
enum ReplicationMessageCodec {
    private enum Kind: UInt8 {
        case everything = 1
        case rest, graphQL, timestamps, uplifted, query, account, domain, restMutation, graphQLMutation
        case domainsInEverySession, dropLocalCaches
        // Kinds added later keep the format's version: older kinds encode as before, and a receiver that does not
        // know a kind refuses that message alone (counted as malformed).
        case values, valueTagsInEveryScope
    }

    static func encode(_ message: ReplicationMessage) -> [UInt8] {
        var writer = Writer()
        writer.optional(message.session) { $0.string($1) }
        switch message.clear {
        case .everything(let reason, let endsSession):
            writer.kind(.everything)
            writer.string(reason)
            writer.bytes.append(endsSession ? 1 : 0)
        case .rest: writer.kind(.rest)
        case .graphQL: writer.kind(.graphQL)
        case .timestamps: writer.kind(.timestamps)
        case .uplifted: writer.kind(.uplifted)
        case .query(let query):
            writer.kind(.query)
            writer.string(query)
        case .account(let identifier):
            writer.kind(.account)
            writer.string(identifier)
        case .domain(let name, let reason):
            writer.kind(.domain)
            writer.string(name)
            writer.string(reason)
        case .restMutation(let method, let path, let entities):
            writer.kind(.restMutation)
            writer.string(method)
            writer.string(path)
            writer.count(entities.count)
            for entity in entities {
                writer.string(entity.record)
                writer.optional(entity.fields) { writer, fields in writer.strings(fields) }
            }
        case .graphQLMutation(let records):
            writer.kind(.graphQLMutation)
            writer.strings(records)
        case .domainsInEverySession(let names, let reason):
            writer.kind(.domainsInEverySession)
            writer.strings(names)
            writer.string(reason)
        case .dropLocalCaches: writer.kind(.dropLocalCaches)
        case .values(let key, let tags):
            writer.kind(.values)
            writer.optional(key) { $0.string($1) }
            writer.strings(tags)
        case .valueTagsInEveryScope(let tags):
            writer.kind(.valueTagsInEveryScope)
            writer.strings(tags)
        }
        return writer.bytes
    }

    /// The message `bytes` encode, or nil when they are not exactly one well-formed message.
    static func decode(_ bytes: [UInt8]) -> ReplicationMessage? {
        decode(bytes[...])
    }

    /// The message a slice holds (a batch's clear, read in place).
    static func decode(_ bytes: ArraySlice<UInt8>) -> ReplicationMessage? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer, origin: bytes.startIndex)
            guard let session = reader.optional({ $0.string() }), let raw = reader.byte(),
                let kind = Kind(rawValue: raw), let clear = clear(kind, from: &reader), reader.isEmpty
            else { return nil }
            return ReplicationMessage(session: session, clear: clear)
        }
    }

    /// What ``check(_:)`` learns of a clear without building it.
    struct Checked: Equatable {
        /// Where the session name is in the checked bytes, for a clear of one session that names one; nil for a
        /// clear of every session (whatever it names) and for one that names none. A receiver looks it up before
        /// decoding the clear.
        var session: Range<Int>?
    }

    /// Whether `bytes` are exactly one well-formed message, by the same reading as ``decode(_:)-(ArraySlice<UInt8>)``
    /// (every length, flag, kind and string's UTF-8 checked, nothing left over) without building its strings: nil
    /// exactly when `decode` returns nil.
    static func check(_ bytes: ArraySlice<UInt8>) -> Checked? {
        bytes.withUnsafeBufferPointer { check($0, origin: bytes.startIndex) }
    }

    /// ``check(_:)`` on bytes already in place, `buffer[0]` being at index `origin` of the caller's collection (a
    /// batch checks each of its clears where it lies, with no slice made per clear).
    static func check(_ buffer: UnsafeBufferPointer<UInt8>, origin: Int) -> Checked? {
        var reader = Reader(buffer, origin: origin, builds: false)
        guard let named = reader.flag() else { return nil }
        var session: Range<Int>?
        if named {
            guard let range = reader.stringRange() else { return nil }
            session = range
        }
        guard let raw = reader.byte(), let kind = Kind(rawValue: raw), clear(kind, from: &reader) != nil,
            reader.isEmpty
        else { return nil }
        switch kind {
        case .domainsInEverySession, .dropLocalCaches, .valueTagsInEveryScope: return Checked(session: nil)
        default: return Checked(session: session)
        }
    }

    /// Whether every byte of `text` is ASCII, eight at a time.
    static func isASCII(_ text: UnsafeRawBufferPointer) -> Bool {
        var high: UInt64 = 0
        var index = 0
        while index + 8 <= text.count {
            high |= text.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < text.count {
            high |= UInt64(text[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    private static func clear(_ kind: Kind, from reader: inout Reader) -> ReplicatedClear? {
        switch kind {
        case .everything:
            guard let reason = reader.string(), let ends = reader.flag() else { return nil }
            return .everything(reason: reason, endsSession: ends)
        case .rest: return .rest
        case .graphQL: return .graphQL
        case .timestamps: return .timestamps
        case .uplifted: return .uplifted
        case .query: return reader.string().map { .query($0) }
        case .account: return reader.string().map { .account($0) }
        case .domain:
            guard let name = reader.string(), let reason = reader.string() else { return nil }
            return .domain(name: name, reason: reason)
        case .restMutation:
            guard let method = reader.string(), let path = reader.string(), let count = reader.count() else {
                return nil
            }
            var entities: [EntityChange] = []
            for _ in 0..<count {
                guard let record = reader.string(), let fields = reader.optional({ $0.strings() }) else { return nil }
                entities.append(EntityChange(record: record, fields: fields))
            }
            return .restMutation(method: method, path: path, entities: entities)
        case .graphQLMutation: return reader.strings().map { .graphQLMutation(records: $0) }
        case .domainsInEverySession:
            guard let names = reader.strings(), let reason = reader.string() else { return nil }
            return .domainsInEverySession(names: names, reason: reason)
        case .dropLocalCaches: return .dropLocalCaches
        case .values:
            guard let key = reader.optional({ $0.string() }), let tags = reader.strings() else { return nil }
            return .values(key: key, tags: tags)
        case .valueTagsInEveryScope: return reader.strings().map { .valueTagsInEveryScope(tags: $0) }
        }
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func kind(_ kind: Kind) { bytes.append(kind.rawValue) }

        mutating func count(_ count: Int) {
            let value = UInt32(clamping: count)
            for shift in stride(from: 24, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }

        mutating func string(_ text: String) {
            count(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }

        mutating func strings(_ texts: [String]) {
            count(texts.count)
            for text in texts { string(text) }
        }

        mutating func optional<Value>(_ value: Value?, _ write: (inout Writer, Value) -> Void) {
            guard let value else { return bytes.append(0) }
            bytes.append(1)
            write(&self, value)
        }
    }

    /// Reads a message's bytes in place, through a pointer valid for the reader's lifetime (it never escapes the
    /// `withUnsafeBufferPointer` that made it): no slice is made, retained or released per field.
    private struct Reader {
        private let buffer: UnsafeBufferPointer<UInt8>
        /// The index of `buffer[0]` in the caller's collection (ranges are given in its indices).
        private let origin: Int
        private var index = 0
        /// False: strings are checked as when built, but read as empty (what ``check(_:)`` needs).
        private let builds: Bool

        init(_ buffer: UnsafeBufferPointer<UInt8>, origin: Int, builds: Bool = true) {
            self.buffer = buffer
            self.origin = origin
            self.builds = builds
        }

        /// Bytes not read yet.
        var left: Int { buffer.count - index }
        var isEmpty: Bool { index == buffer.count }

        mutating func byte() -> UInt8? {
            guard index < buffer.count else { return nil }
            defer { index += 1 }
            return buffer[index]
        }

        mutating func flag() -> Bool? {
            switch byte() {
            case 0: return false
            case 1: return true
            default: return nil
            }
        }

        /// A 4-byte count, never more than the bytes left (every item takes at least one byte), so a forged count
        /// cannot make the decoder loop beyond the payload.
        mutating func count() -> Int? {
            guard left >= 4 else { return nil }
            let value =
                Int(buffer[index]) << 24 | Int(buffer[index + 1]) << 16 | Int(buffer[index + 2]) << 8
                | Int(buffer[index + 3])
            index += 4
            return value <= left ? value : nil
        }

        mutating func string() -> String? {
            guard let text = validString() else { return nil }
            guard builds else { return "" }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[text]), as: UTF8.self)
        }

        /// Where the next string's bytes are (in the caller's indices), once its length and UTF-8 are checked.
        mutating func stringRange() -> Range<Int>? {
            validString().map { (origin + $0.lowerBound)..<(origin + $0.upperBound) }
        }

        /// Where in `buffer` the next string's bytes are, when its length fits and they are UTF-8: ASCII (session
        /// hashes, names, reasons) is valid as it is; anything else is validated.
        private mutating func validString() -> Range<Int>? {
            guard let length = count() else { return nil }
            let range = index..<(index + length)
            index += length
            let text = UnsafeBufferPointer(rebasing: buffer[range])
            let valid =
                ReplicationMessageCodec.isASCII(UnsafeRawBufferPointer(text))
                || String(validating: text, as: UTF8.self) != nil
            return valid ? range : nil
        }

        mutating func strings() -> [String]? {
            guard let count = count() else { return nil }
            var texts: [String] = []
            for _ in 0..<count {
                guard let text = string() else { return nil }
                texts.append(text)
            }
            return texts
        }

        /// `.some(nil)` for an absent value, `.some(value)` for a present one, nil when malformed.
        mutating func optional<Value>(_ read: (inout Reader) -> Value?) -> Value?? {
            switch flag() {
            case .some(false): return .some(nil)
            case .some(true): return read(&self).map { .some($0) }
            case .none: return nil
            }
        }
    }
}
