import Foundation

extension GraphQLJSON {
    /// How deeply arrays and objects may nest before parsing refuses the input, so hostile bytes cannot exhaust
    /// the stack. GraphQL responses are as deep as their query (a few levels); 512 is far beyond.
    public static var maximumParsingDepth: Int { 512 }

    /// Parses one JSON value (RFC 8259) from UTF-8 bytes, such as a response body.
    ///
    /// Strict: no comments, no trailing commas, no leading zeros, no lone surrogates, valid UTF-8 only, nothing
    /// but whitespace after the value. Integers that fit in `Int64` become `.int`, other numbers `.double`.
    /// - Throws: ``GraphQLLanguageError/Code/invalidJSON`` with the ``GraphQLLanguageError/byteOffset`` of the first
    ///   problem; the message never quotes the input.
    public init(parsing bytes: some ContiguousBytes) throws(GraphQLLanguageError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(GraphQLLanguageError) -> GraphQLJSON in
                var parser = GraphQLJSONParser(bytes: raw.bindMemory(to: UInt8.self))
                return try parser.parseDocument()
            }
        }
        self = try result.get()
    }

    /// Parses one JSON value from text; see ``init(parsing:)-(ContiguousBytes)``.
    public init(parsing text: String) throws(GraphQLLanguageError) {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(GraphQLLanguageError) -> GraphQLJSON in
                var parser = GraphQLJSONParser(bytes: bytes)
                return try parser.parseDocument()
            }
        }
        self = try result.get()
    }
}

/// A recursive-descent JSON parser over a byte buffer.
///
/// Members and elements are collected on two shared stacks and copied once into exactly-sized arrays when
/// their container closes, so a container costs its final allocation only (no growth reallocations).
package struct GraphQLJSONParser {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var position = 0
    private var depth = 0
    private var keyStack: [String] = []
    private var valueStack: [GraphQLJSON] = []

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        keyStack.reserveCapacity(64)
        valueStack.reserveCapacity(256)
    }

    package mutating func parseDocument() throws(GraphQLLanguageError) -> GraphQLJSON {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else {
            throw failure("unexpected data after the JSON value")
        }
        return value
    }

    // MARK: - Values

    private mutating func parseValue() throws(GraphQLLanguageError) -> GraphQLJSON {
        guard position < bytes.count else {
            throw failure("unexpected end of input, expected a value")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw failure("unexpected character, expected a value")
        }
    }

    private mutating func parseObject() throws(GraphQLLanguageError) -> GraphQLJSON {
        try enterContainer()
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(GraphQLJSONObject())
        }
        let base = keyStack.count
        while true {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw failure("expected a member name in quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw failure("expected ':' after a member name")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            keyStack.append(key)
            valueStack.append(value)
            skipWhitespace()
            guard position < bytes.count else {
                throw failure("unexpected end of input in an object")
            }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "}") {
                break
            }
            guard byte == UInt8(ascii: ",") else {
                position -= 1
                throw failure("expected ',' or '}' in an object")
            }
            skipWhitespace()
        }
        let keys = Array(keyStack[base...])
        let valueBase = valueStack.count - keys.count
        let values = Array(valueStack[valueBase...])
        keyStack.removeLast(keys.count)
        valueStack.removeLast(keys.count)
        depth -= 1
        return .object(GraphQLJSONObject(keys: keys, values: values))
    }

    private mutating func parseArray() throws(GraphQLLanguageError) -> GraphQLJSON {
        try enterContainer()
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array([])
        }
        let base = valueStack.count
        while true {
            let value = try parseValue()
            valueStack.append(value)
            skipWhitespace()
            guard position < bytes.count else {
                throw failure("unexpected end of input in a list")
            }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "]") {
                break
            }
            guard byte == UInt8(ascii: ",") else {
                position -= 1
                throw failure("expected ',' or ']' in a list")
            }
            skipWhitespace()
        }
        let elements = Array(valueStack[base...])
        valueStack.removeLast(elements.count)
        depth -= 1
        return .array(elements)
    }

    private mutating func enterContainer() throws(GraphQLLanguageError) {
        depth += 1
        guard depth <= GraphQLJSON.maximumParsingDepth else {
            throw failure("lists and objects nest deeper than \(GraphQLJSON.maximumParsingDepth) levels")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(GraphQLLanguageError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else {
            throw failure("unexpected end of input, expected a value")
        }
        let start = word.utf8Start
        for offset in 0..<count where bytes[position + offset] != start[offset] {
            position += offset
            throw failure("unexpected character, expected a value")
        }
        position += count
    }

    // MARK: - Helpers

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                position += 1
            default:
                return
            }
        }
    }

    /// An `invalidJSON` error at the current position.
    package func failure(_ message: String) -> GraphQLLanguageError {
        failure(message, at: position)
    }

    package func failure(_ message: String, at offset: Int) -> GraphQLLanguageError {
        GraphQLLanguageError(code: .invalidJSON, message: "Invalid JSON: \(message).", byteOffset: offset)
    }
}
