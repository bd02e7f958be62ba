import CacheCore
import Foundation
import GraphQLCache
import RESTCache

/// The bytes of a REST entry in the second level: a small, versioned binary form (no JSON: a hit decodes in
/// microseconds, and the body is kept as received, not re-encoded).
///
/// Layout (big-endian): magic `UC2L`, version, kind (1 = REST), status (u16), stored-at and expires-at (wall clock,
/// IEEE-754 seconds since 1970; expires-at behind a presence byte), timeout (0 = never, 1 = seconds + f64),
/// uplifted (u8), ETag and Last-Modified (optional strings), domains, accounts, entity keys, tags (string lists),
/// then the body (u32 length + bytes). Every length is checked against what is left; anything unexpected —
/// another magic or version, a truncated field, bytes left over, invalid UTF-8, a time that is not a date between
/// years 1 and 9999, a negative or non-finite timeout — makes the value unreadable, which the caches count and treat
/// as a miss.
///
/// These bytes never reach the store as they are: the front seals them (``SecondLevelSealing``: AES-256-GCM, bound
/// to the key, namespace, kind and generation) after ``encode(_:)`` and opens them before ``decode(_:)``.
enum SecondLevelEntryCodec {
    static let magic: [UInt8] = Array("UC2L".utf8)
    static let version: UInt8 = 1
    static let restKind: UInt8 = 1
    static let graphQLKind: UInt8 = 2

    /// A GraphQL result: magic, version, kind 2, stored-at, expires-at (as for REST), then the data's JSON (u32
    /// length + bytes).
    static func encode(_ entry: GraphQLSecondLevelEntry) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(entry.data.count + 32)
        writer.appendPrefix(kind: graphQLKind)
        writer.append(storedAt: entry.storedAt, expiresAt: entry.expiresAt)
        writer.append(UInt32(clamping: entry.data.count))
        writer.append(entry.data)
        return writer.bytes
    }

    /// The GraphQL entry, or nil when the bytes are not a complete one of this version.
    static func decodeGraphQL(_ bytes: [UInt8]) -> GraphQLSecondLevelEntry? {
        var reader = ByteReader(bytes)
        guard reader.hasPrefix(kind: graphQLKind), let (storedAt, expiresAt) = reader.exactTimes(),
            let length = reader.uint32(), let data = reader.bytes(Int(length)), reader.isAtEnd
        else { return nil }
        return GraphQLSecondLevelEntry(data: Array(data), storedAt: storedAt, expiresAt: expiresAt)
    }

    static func encode(_ entry: RESTSecondLevelEntry) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(entry.body.count + 128)
        writer.appendPrefix(kind: restKind)
        writer.append(UInt16(clamping: entry.status))
        writer.append(storedAt: entry.storedAt, expiresAt: entry.expiresAt)
        switch entry.metadata.timeout {
        case .seconds(let seconds):
            // Written as the reader takes it (clamped, -0 as 0), so the value decodes to exactly these bytes.
            writer.append(UInt8(1))
            writer.append(OutsideValue.clampedSeconds(seconds))
        case .never, .useDefault:
            writer.append(UInt8(0))
        }
        writer.append(UInt8(entry.metadata.isUplifted ? 1 : 0))
        writer.append(optional: entry.metadata.validators.etag)
        writer.append(optional: entry.metadata.validators.lastModified)
        for set in [entry.metadata.domains, entry.metadata.accounts, entry.metadata.entityKeys, entry.metadata.tags] {
            writer.append(list: set.sorted())
        }
        writer.append(UInt32(clamping: entry.body.count))
        writer.append(Array(entry.body))
        return writer.bytes
    }

    /// The entry, or nil when the bytes are not a complete entry of this version.
    static func decode(_ bytes: [UInt8]) -> RESTSecondLevelEntry? {
        var reader = ByteReader(bytes)
        guard reader.hasPrefix(kind: restKind), let status = reader.uint16(),
            let (storedAt, expiresAt) = reader.exactTimes()
        else { return nil }
        let timeout: Timeout
        switch reader.byte() {
        case 0: timeout = .never
        case 1:
            // Only a timeout taken as written: one the helper would clamp (−0, beyond ~4.6e9 s) re-encodes otherwise.
            guard let raw = reader.double(), let seconds = OutsideValue.seconds(raw),
                seconds.bitPattern == raw.bitPattern
            else { return nil }
            timeout = .seconds(seconds)
        default: return nil
        }
        guard let uplifted = reader.byte(), uplifted <= 1, let etag = reader.optionalString(),
            let lastModified = reader.optionalString(), let domains = reader.set(), let accounts = reader.set(),
            let entityKeys = reader.set(), let tags = reader.set(), let bodyLength = reader.uint32(),
            let body = reader.bytes(Int(bodyLength)), reader.isAtEnd
        else { return nil }
        let metadata = CacheEntryMetadata(
            timeout: timeout, domains: domains, accounts: accounts, isUplifted: uplifted == 1,
            validators: CacheValidators(etag: etag, lastModified: lastModified), entityKeys: entityKeys, tags: tags)
        return RESTSecondLevelEntry(
            status: Int(status), body: Data(body), storedAt: storedAt, expiresAt: expiresAt, metadata: metadata)
    }
}

/// Appends big-endian fields.
struct ByteWriter {
    var bytes: [UInt8] = []

    /// Magic, version and the entry's kind: what every value starts with.
    mutating func appendPrefix(kind: UInt8) {
        append(SecondLevelEntryCodec.magic)
        append(SecondLevelEntryCodec.version)
        append(kind)
    }

    /// When the entry was stored and when it expires (wall clock, seconds since 1970; the expiry behind a presence
    /// byte).
    mutating func append(storedAt: Date, expiresAt: Date?) {
        append(storedAt.timeIntervalSince1970)
        append(optional: expiresAt?.timeIntervalSince1970)
    }

    mutating func append(_ value: UInt8) { bytes.append(value) }
    mutating func append(_ values: [UInt8]) { bytes.append(contentsOf: values) }
    mutating func append(_ value: UInt16) { bytes.append(contentsOf: [UInt8(value >> 8), UInt8(value & 0xFF)]) }
    mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    mutating func append(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
    }
    mutating func append(optional value: Double?) {
        guard let value else { return append(UInt8(0)) }
        append(UInt8(1))
        append(value)
    }
    mutating func append(string: String) {
        append(UInt32(clamping: string.utf8.count))
        bytes.append(contentsOf: string.utf8)
    }
    mutating func append(optional string: String?) {
        guard let string else { return append(UInt8(0)) }
        append(UInt8(1))
        append(string: string)
    }
    mutating func append(list: [String]) {
        append(UInt32(clamping: list.count))
        for string in list { append(string: string) }
    }
}

/// Reads big-endian fields; every read returns nil past the end instead of trapping.
struct ByteReader {
    private let storage: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { storage = bytes }

    var isAtEnd: Bool { offset == storage.count }

    /// Whether the value starts with the magic, this version and `kind`.
    mutating func hasPrefix(kind: UInt8) -> Bool {
        bytes(SecondLevelEntryCodec.magic.count) == SecondLevelEntryCodec.magic[...]
            && byte() == SecondLevelEntryCodec.version && byte() == kind
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, storage.count - offset >= count else { return nil }
        defer { offset += count }
        return storage[offset..<(offset + count)]
    }
    mutating func byte() -> UInt8? {
        guard offset < storage.count else { return nil }
        defer { offset += 1 }
        return storage[offset]
    }
    /// The next `width` bytes as a big-endian integer, read in place (no slice of the storage).
    private mutating func bigEndian(width: Int) -> UInt64? {
        guard storage.count - offset >= width else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + width) { value = value << 8 | UInt64(storage[index]) }
        offset += width
        return value
    }
    mutating func uint16() -> UInt16? { bigEndian(width: 2).map { UInt16(truncatingIfNeeded: $0) } }
    mutating func uint32() -> UInt32? { bigEndian(width: 4).map { UInt32(truncatingIfNeeded: $0) } }
    mutating func double() -> Double? { bigEndian(width: 8).map { Double(bitPattern: $0) } }
    /// A string of valid UTF-8 only (a decoded value re-encodes to its own bytes). ASCII, what names, domains, tags
    /// and validators almost always are, needs no validation: `String(decoding:)` is specialized where
    /// `String(validating:)` looks up generic metadata on every call, and every L2 hit reads several strings.
    mutating func string() -> String? {
        guard let length = uint32(), let raw = bytes(Int(length)) else { return nil }
        return raw.withUnsafeBufferPointer { buffer in
            buffer.allSatisfy { $0 < 0x80 }
                ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
        }
    }
    mutating func optionalString() -> String?? {
        switch byte() {
        case 0: return .some(nil)
        case 1: return string().map { .some($0) }
        default: return nil
        }
    }

    /// A string list read straight into a set; strictly ascending, as the encoder writes sets, so a value re-encodes to
    /// its own bytes. An empty one (most of them) allocates nothing.
    mutating func set() -> Set<String>? {
        guard let count = uint32(), Int(count) <= storage.count - offset else { return nil }
        if count == 0 { return [] }
        var set = Set<String>(minimumCapacity: Int(count))
        var last: String?
        for _ in 0..<count {
            guard let string = string(), last.map({ $0 < string }) ?? true else { return nil }
            set.insert(string)
            last = string
        }
        return set
    }

    /// Stored-at and the optional expires-at written by `ByteWriter.append(storedAt:expiresAt:)`; nil when either
    /// is missing, not a date (`OutsideValue.date(secondsSince1970:)`), or would not encode back to the bytes read:
    /// `Date` keeps its time relative to 2001, so a reading far from that with digits below its precision would come
    /// back changed. A value re-encodes to its own bytes (the encoder writes each time's bit pattern).
    mutating func exactTimes() -> (storedAt: Date, expiresAt: Date?)? {
        guard let storedAt = exactDate() else { return nil }
        switch byte() {
        case 0: return (storedAt, nil)
        case 1: return exactDate().map { (storedAt, $0) }
        default: return nil
        }
    }

    private mutating func exactDate() -> Date? {
        guard let raw = double(), let date = OutsideValue.date(secondsSince1970: raw),
            date.timeIntervalSince1970.bitPattern == raw.bitPattern
        else { return nil }
        return date
    }
}
