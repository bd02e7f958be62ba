import GraphQLLanguage

extension GraphQLJSON {
    /// Decodes the caller's type from this value, as `JSONDecoder` would from its text (same rules for numbers,
    /// `Decimal`, `URL`, `Data` as base64, and `Date` as seconds since 2001), without producing text first.
    /// - Throws: `decodingFailed` with the `DecodingError` as underlying error and the place as `path`.
    public func decode<T: Decodable>(
        _ type: T.Type,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws(GraphQLCacheError) -> T {
        let decoder = RecordDecoder(records: RecordMap(), context: nil, value: .json(self), userInfo: userInfo)
        do {
            return try decoder.decode(type)
        } catch {
            throw GraphQLCacheError.decodingFailed(error, as: type)
        }
    }
}

extension GraphQLCacheError {
    /// Wraps a failure of `init(from:)`; the message names the kind of problem and the place, never a value.
    static func decodingFailed(_ error: any Error, as type: Any.Type) -> GraphQLCacheError {
        let (problem, path): (String, [any CodingKey]) =
            switch error as? DecodingError {
            case .typeMismatch(_, let context)?: ("a value has another type", context.codingPath)
            case .valueNotFound(_, let context)?: ("a value is null or missing", context.codingPath)
            case .keyNotFound(let key, let context)?: ("no '\(key.stringValue)'", context.codingPath + [key])
            case .dataCorrupted(let context)?: ("the data is not what the type expects", context.codingPath)
            default: ("init(from:) threw", [])
            }
        let dotted = path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return GraphQLCacheError(
            code: .decodingFailed,
            message: "The cached data does not decode as \(type): \(problem).",
            path: dotted,
            underlying: error
        )
    }
}

extension GraphQLJSON: Codable {
    /// Any JSON value, from any decoder (a custom scalar typed as `GraphQLJSON` in the caller's struct).
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: NamedCodingKey.self) {
            var object = GraphQLJSONObject()
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(GraphQLJSON.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [GraphQLJSON] = []
            while !container.isAtEnd {
                elements.append(try container.decode(GraphQLJSON.self))
            }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .int(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .int(let integer):
            var container = encoder.singleValueContainer()
            try container.encode(integer)
        case .double(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .object(let object):
            var container = encoder.container(keyedBy: NamedCodingKey.self)
            for (key, value) in object {
                try container.encode(value, forKey: NamedCodingKey(key))
            }
        }
    }
}
