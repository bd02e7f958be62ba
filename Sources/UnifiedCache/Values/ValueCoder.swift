import Foundation

/// How the value door turns a cached value into bytes and back: the bytes are what the memory budget is charged
/// for and what the sealed second level stores, while a hit in memory returns the value itself (a cast, no decode).
///
/// JSON by default (``JSONValueCoder``); a BFF that stores large values may plug a denser format. A coder must be
/// deterministic enough that what it encodes it can decode: a value that fails to decode from the second level is
/// a counted miss (``ValueCacheStatistics/decodeFailures``), never an error to the caller.
public protocol ValueCoder: Sendable {
    /// The bytes of `value`; throwing makes the call fail with ``UnifiedCacheError/Code/valueNotEncodable``.
    func encode<Value: Encodable>(_ value: Value) throws -> Data
    /// The value `data` holds; throwing makes a second-level read a miss.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
}

/// The default ``ValueCoder``: Foundation's JSON with sorted keys, so equal values give equal bytes.
public struct JSONValueCoder: ValueCoder {
    public init() {}

    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(value)
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONFastDecoder.decode(type, from: data)
    }
}
