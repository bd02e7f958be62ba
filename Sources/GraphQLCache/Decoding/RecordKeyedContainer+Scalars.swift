// Every scalar overload is written out for its concrete type: a helper generic over the scalar type would
// run unspecialized inside the key-generic container (the standard library's box erases `Key`) and look up
// type metadata on every member, a tenth of a decode.
import GraphQLLanguage

extension RecordKeyedContainer {
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Bool.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(String.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Double.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Float.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Int.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Int8.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Int16.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Int32.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(Int64.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(UInt.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(UInt8.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(UInt16.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(UInt32.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        let json = leaf(named: key.stringValue)
        guard let value = json.flatMap(UInt64.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        let json = leaf(named: key.stringValue)
        if json == nil, !contains(key) {
            return nil
        }
        if let json, json.isNull {
            return nil
        }
        guard let value = json.flatMap(String.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        let json = leaf(named: key.stringValue)
        if json == nil, !contains(key) {
            return nil
        }
        if let json, json.isNull {
            return nil
        }
        guard let value = json.flatMap(Int.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        let json = leaf(named: key.stringValue)
        if json == nil, !contains(key) {
            return nil
        }
        if let json, json.isNull {
            return nil
        }
        guard let value = json.flatMap(Double.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        let json = leaf(named: key.stringValue)
        if json == nil, !contains(key) {
            return nil
        }
        if let json, json.isNull {
            return nil
        }
        guard let value = json.flatMap(Bool.scalar(from:)) else {
            throw leafError(type, json, key)
        }
        return value
    }
}
