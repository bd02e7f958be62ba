extension GraphQLJSON {
    /// Compact JSON text (no whitespace), as UTF-8 bytes.
    ///
    /// - Parameter sortedKeys: canonical text: object members sorted by key (byte order), and doubles with an
    ///   integral value below 2^53 written as integers (`20.0` as `20`), so the text does not depend on member
    ///   order or on how a number was typed. Argument-aware storage keys are made this way.
    public func jsonBytes(sortedKeys: Bool = false) -> [UInt8] {
        var writer = GraphQLJSONWriter(sortedKeys: sortedKeys)
        writer.write(self)
        return writer.output
    }

    /// Compact JSON text (no whitespace); see ``jsonBytes(sortedKeys:)``.
    public func jsonText(sortedKeys: Bool = false) -> String {
        String(decoding: jsonBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }
}

/// Appends JSON text to a byte buffer.
package struct GraphQLJSONWriter {
    package let sortedKeys: Bool
    package var output: [UInt8] = []

    package init(sortedKeys: Bool) {
        self.sortedKeys = sortedKeys
    }

    package mutating func write(_ value: GraphQLJSON) {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .int(let number):
            append(String(number))
        case .double(let number):
            if sortedKeys, number.rounded(.towardZero) == number, abs(number) < 0x1p53 {
                append(String(Int64(number)))
            } else {
                // Non-finite doubles have no JSON form; they cannot come from parsing, only from code.
                append(number.isFinite ? String(number) : "null")
            }
        case .string(let string):
            writeString(string)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 {
                    output.append(UInt8(ascii: ","))
                }
                write(element)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            writeObject(object)
        }
    }

    private mutating func writeObject(_ object: GraphQLJSONObject) {
        output.append(UInt8(ascii: "{"))
        var order = Array(object.keys.indices)
        if sortedKeys {
            order.sort { object.keys[$0].utf8.lexicographicallyPrecedes(object.keys[$1].utf8) }
        }
        for (written, position) in order.enumerated() {
            if written > 0 {
                output.append(UInt8(ascii: ","))
            }
            writeString(object.keys[position])
            output.append(UInt8(ascii: ":"))
            write(object.values[position])
        }
        output.append(UInt8(ascii: "}"))
    }

    package mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""):
                append("\\\"")
            case UInt8(ascii: "\\"):
                append("\\\\")
            case 0x0A:
                append("\\n")
            case 0x0D:
                append("\\r")
            case 0x09:
                append("\\t")
            case 0x08:
                append("\\b")
            case 0x0C:
                append("\\f")
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }
}
