import Foundation
import Testing

@testable import CacheCore

@Suite("JSON fast decoding: Foundation's JSONDecoder's values and errors, from a tape of our own where it is sure")
struct JSONFastDecoderTests {
    struct Account: Codable, Equatable {
        enum Kind: String, Codable { case checking, savings }
        let id: String
        let name: String?
        let balance: Double
        let cents: Int64
        let kind: Kind
        let tags: [String]
        let limits: [String: Int]
        let opened: Date
        let logo: Data
        let site: URL
        let owner: Owner?
    }

    struct Owner: Codable, Equatable {
        let first: String
        let age: UInt8
        let ratio: Float
    }

    static let account = #"""
        {"id":"a-1","name":null,"balance":1234.5,"cents":-9223372036854775808,"kind":"savings",
         "tags":["x","\u00e9t\u00E9 \ud83d\ude00","tab\tnew\nline \"q\" \\ \/"],
         "limits":{"daily":500,"monthly":10000,"monthly":1},
         "opened":123456.75,"logo":"aGVsbG8=","site":"https://bank.example/a?b=c",
         "owner":{"first":"Zoë","age":255,"ratio":0.1}, "ignored": [1, {"deep": [true, false, null]}]}
        """#

    /// Decodes with both and requires the same value (or both to fail); returns whether the tape alone decoded it.
    @discardableResult
    func agree<T: Decodable & Equatable>(_ type: T.Type, _ json: String) throws -> Bool {
        let data = Data(json.utf8)
        let foundation = Result { try JSONDecoder().decode(type, from: data) }
        let fast = Result { try JSONFastDecoder.decode(type, from: data, as: JSONDecoder()) }
        switch (foundation, fast) {
        case (.success(let expected), .success(let value)):
            #expect(value == expected, "\(json) as \(type)")
        case (.failure, .failure):
            break
        default:
            Issue.record("\(json) as \(type): Foundation \(foundation), fast \(fast)")
        }
        return JSONTapeDecoder.decode(type, from: data) != nil
    }

    @Test("a nested answer decodes to Foundation's value on the fast path, special types and escapes included")
    func nestedAnswer() throws {
        #expect(try agree(Account.self, Self.account))
        let decoded = try JSONFastDecoder.decode(Account.self, from: Data(Self.account.utf8), as: JSONDecoder())
        #expect(decoded.limits["monthly"] == 10000, "the first of two equal keys wins, as in Foundation")
        #expect(decoded.tags[1] == "été 😀")
        #expect(try agree([Account].self, "[\(Self.account), \(Self.account)]"))
    }

    @Test("numbers read as Foundation reads them: exact integers, correctly rounded floating point")
    func numbers() throws {
        #expect(try agree([Int].self, "[0, -0, 42, 9223372036854775807, -9223372036854775808]"))
        #expect(try agree([UInt8].self, "[0, 255, -0]"))
        #expect(try agree([Double].self, "[0.1, -0.0, 1e-300, 1.7976931348623157e308, 12345678901234567890123, 5]"))
        #expect(try agree([Float].self, "[0.1, 3.4028235e38, 1e-30, 16777217]"))
        // Refused by the tape and left to Foundation (which takes some and refuses others).
        for json in ["[1.0]", "[1e2]", "[1.5]", "[9223372036854775808]", "[-1.0e0]"] {
            #expect(try !agree([Int].self, json), "\(json)")
        }
        #expect(try !agree([UInt8].self, "[256]"))
        #expect(try !agree([UInt].self, "[-1]"))
        #expect(try !agree([Double].self, "[1e400]"))
        #expect(try !agree([Double].self, "[1e-400]"))
        #expect(try !agree([Float].self, "[1e39]"))
        #expect(try !agree([Decimal].self, "[12.50]"))
        #expect(try !agree([Int128].self, "[170141183460469231731687303715884105727]"))
        struct Wide: Decodable, Equatable { let big: UInt128?, small: Int128 }
        #expect(try !agree(Wide.self, #"{"big":1,"small":-2}"#))
    }

    @Test("what the tape does not take is Foundation's to take or to fail, with Foundation's error")
    func invalidDocuments() throws {
        for json in [
            "", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "[01]", "[1.]", "[.5]", "[-]", "[1e]", "tru", "nul",
            "[\"\\x\"]", "[\"\\u12G4\"]", "[\"\\ud800\"]", "{\"a\":1} x", "[\"a\u{1}\"]",
        ] {
            #expect(try !agree([String: Int].self, json), "\(json)")
        }
        // Foundation takes a trailing comma in an object: so does the fast path, by leaving it to Foundation.
        #expect(
            try JSONFastDecoder.decode([String: Int].self, from: Data(#"{"a":1,}"#.utf8), as: JSONDecoder()) == ["a": 1]
        )
        #expect(throws: DecodingError.self) {
            try JSONFastDecoder.decode([String: Int].self, from: Data("{\"a\" 1}".utf8), as: JSONDecoder())
        }
        #expect(try agree(Int.self, " 5 "))
        #expect(try agree(String.self, "\"top-level fragment\""))
        #expect(try !agree([String: Int].self, "\u{FEFF}{\"a\":1}"), "a byte order mark is left to Foundation")
    }

    @Test("a long string is scanned right whichever byte of an eight-byte word its escape or non-ASCII text is at")
    func longStrings() throws {
        for offset in 0..<20 {
            let before = String(repeating: "a", count: offset)
            let after = String(repeating: "z", count: 23 - offset)
            for special in [#"\""#, #"\\"#, #"\n"#, "é", "😀", #"\u00e9"#] {
                #expect(try agree([String].self, "[\"\(before)\(special)\(after)\"]"), "\(special) at \(offset)")
            }
            #expect(try !agree([String].self, "[\"\(before)\u{1}\(after)\"]"), "a raw control character at \(offset)")
            #expect(try !agree([String].self, "[\"\(before)\(after)"), "no closing quote")
            let invalid = Data("[\"\(before)".utf8) + [0xFF] + Data("\(after)\"]".utf8)
            #expect(
                JSONTapeDecoder.decode([String].self, from: invalid) == nil, "invalid UTF-8 at \(offset) is refused")
        }
        // Invalid UTF-8: where a decoded string holds it, Foundation decides; where none reads it, both take it.
        var invalid = Data(#"{"first":"ab"#.utf8) + [0xFF] + Data(#"","age":1,"ratio":1}"#.utf8)
        #expect(JSONTapeDecoder.decode(Owner.self, from: invalid) == nil)
        #expect(
            (try? JSONFastDecoder.decode(Owner.self, from: invalid, as: JSONDecoder()))
                == (try? JSONDecoder().decode(Owner.self, from: invalid)))
        invalid = Data(#"{"first":"a","age":1,"ratio":1,"x":""#.utf8) + [0xFF] + Data(#""}"#.utf8)
        #expect(
            try JSONDecoder().decode(Owner.self, from: invalid) == JSONTapeDecoder.decode(Owner.self, from: invalid))
        let plain = try JSONFastDecoder.decode(
            [String].self, from: Data("[\"abcdefghé\"]".utf8), as: JSONDecoder())
        #expect(plain == ["abcdefghé"])
    }

    @Test("an object's keys are all read when a container is made on it, as Foundation reads them")
    func invalidKeys() throws {
        let invalidKey = Data(#"{"a":1,"b"#.utf8) + [0xFF] + Data(#"":2}"#.utf8)
        let nestedInvalidKey = Data(#"{"a":1,"x":{"b"#.utf8) + [0xFF] + Data(#"":2}}"#.utf8)
        struct Top: Decodable, Equatable { let a: Int }
        for data in [invalidKey, Data(#"{"a":1,"b\ud800":2}"#.utf8)] {
            #expect(JSONTapeDecoder.decode(Top.self, from: data) == nil)
            #expect(throws: DecodingError.self) { try JSONFastDecoder.decode(Top.self, from: data, as: JSONDecoder()) }
        }
        // An object no container is made on is not read, by either.
        for data in [nestedInvalidKey, Data(#"{"a":1,"x":{"b\ud800":2}}"#.utf8)] {
            #expect(JSONTapeDecoder.decode(Top.self, from: data) == Top(a: 1))
            #expect(try JSONDecoder().decode(Top.self, from: data) == Top(a: 1))
        }
    }

    @Test("a type mismatch, a missing key or a null gives Foundation's error")
    func mismatches() throws {
        for json in [
            #"{"first":"a","age":300,"ratio":1}"#, #"{"first":1,"age":3,"ratio":1}"#, #"{"age":3,"ratio":1}"#,
            #"{"first":null,"age":3,"ratio":1}"#, #"{"first":"a","age":true,"ratio":1}"#, "[]", "null",
        ] {
            try agree(Owner.self, json)
            #expect(throws: DecodingError.self) {
                try JSONFastDecoder.decode(Owner.self, from: Data(json.utf8), as: JSONDecoder())
            }
        }
    }

    /// Catches what it cannot read and takes a default: it would see a difference if the tape refused what
    /// Foundation takes.
    struct Forgiving: Decodable, Equatable {
        let count: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            count = (try? container.decode(Int.self, forKey: .count)) ?? -1
        }
        enum CodingKeys: String, CodingKey { case count }
    }

    @Test("a type that catches an error still gets Foundation's value: any refusal sends the document to Foundation")
    func caughtErrors() throws {
        let decoded = try JSONFastDecoder.decode(Forgiving.self, from: Data(#"{"count":2.0}"#.utf8), as: JSONDecoder())
        #expect(decoded.count == 2, "Foundation reads 2.0 as an integer; the tape gave up, so its -1 never shows")
        #expect(try !agree(Forgiving.self, #"{"count":2.0}"#))
        #expect(try !agree(Forgiving.self, #"{"count":"two"}"#))
        #expect(try agree(Forgiving.self, #"{"count":2}"#))
    }

    /// Any JSON value, read by trying each kind in turn, as loosely-typed answers are often read.
    indirect enum AnyJSON: Decodable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case array([AnyJSON])
        case object([String: AnyJSON])
        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
            } else if let int = try? single.decode(Int.self) {
                self = .int(int)
            } else if let double = try? single.decode(Double.self) {
                self = .double(double)
            } else if let string = try? single.decode(String.self) {
                self = .string(string)
            } else if let array = try? single.decode([AnyJSON].self) {
                self = .array(array)
            } else {
                self = .object(try single.decode([String: AnyJSON].self))
            }
        }
    }

    @Test("random documents read by a type that tries every kind agree with Foundation")
    func randomDocuments() throws {
        var generator = SplitMix(seed: 0x5EED)
        for _ in 0..<400 {
            try agree(AnyJSON.self, Self.randomValue(&generator, depth: 0))
        }
    }

    @Test("keys compare as Swift strings: a canonically equal key is found, as Foundation finds it")
    func canonicalKeys() throws {
        #expect(try agree([String: Int].self, #"{"K":1,"\u212A":2}"#))
        struct Keyed: Decodable, Equatable {
            let key: Int
            enum CodingKeys: String, CodingKey { case key = "Key" }
        }
        try agree(Keyed.self, #"{"\u212Aey":1}"#)
        #expect(try agree(Keyed.self, "{\"\u{212A}ey\":1}"), "an unescaped non-ASCII key is compared as a string")
        #expect(
            try JSONFastDecoder.decode(Keyed.self, from: Data("{\"\u{212A}ey\":1}".utf8), as: JSONDecoder()).key == 1)
        let big = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(try agree([String: Int].self, "{\(big),\"k3\":99}"))
        struct Big: Decodable, Equatable { let k3: Int, k39: Int }
        #expect(try agree(Big.self, "{\(big),\"k3\":99}"))
    }

    /// Records the coding path each value saw.
    struct PathProbe: Decodable, Equatable {
        let paths: [String]
        init(from decoder: any Decoder) throws {
            var paths = [decoder.codingPath.map(\.stringValue).joined(separator: ".")]
            if var list = try? decoder.unkeyedContainer() {
                while !list.isAtEnd { paths += try list.decode(PathProbe.self).paths }
            } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
                // Foundation's key order is its dictionary's (seeded per process): only a sorted order is comparable.
                let keys = object.allKeys.sorted { $0.stringValue < $1.stringValue }
                for key in keys {
                    paths += try object.decode(PathProbe.self, forKey: key).paths
                }
                if let key = keys.first, let nested = try? object.nestedUnkeyedContainer(forKey: key) {
                    paths.append(nested.codingPath.map(\.stringValue).joined(separator: "."))
                }
            }
            self.paths = paths
        }
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A value that records the coding path it was decoded at.
    struct Probe<Inner: Decodable & Equatable>: Decodable, Equatable {
        let path: String
        let inner: Inner
        init(from decoder: any Decoder) throws {
            path = decoder.codingPath.map(\.stringValue).joined(separator: ".")
            inner = try decoder.singleValueContainer().decode(Inner.self)
        }
    }

    struct Document: Decodable, Equatable {
        struct Nested: Decodable, Equatable {
            let d: [[Probe<Bool>]]
            let e: Probe<String?>
        }
        let a: [Probe<Int>]
        let c: Probe<Nested>
    }

    /// Reads through nested containers, recording each container's path.
    struct Nesting: Decodable, Equatable {
        enum Keys: String, CodingKey { case outer, list, leaf }
        let leaf: Probe<Int>
        let element: Probe<Int>
        let paths: [String]
        init(from decoder: any Decoder) throws {
            let top = try decoder.container(keyedBy: Keys.self)
            let outer = try top.nestedContainer(keyedBy: Keys.self, forKey: .outer)
            var list = try outer.nestedUnkeyedContainer(forKey: .list)
            let inner = try list.nestedContainer(keyedBy: Keys.self)
            leaf = try inner.decode(Probe<Int>.self, forKey: .leaf)
            element = try list.decode(Probe<Int>.self)
            paths = [top.codingPath, outer.codingPath, list.codingPath, inner.codingPath].map {
                $0.map(\.stringValue).joined(separator: ".")
            }
        }
    }

    @Test("a value sees the coding path Foundation gives it")
    func codingPaths() throws {
        #expect(try agree(Document.self, #"{"a":[1,2],"c":{"d":[[true],[false,true]],"e":null}}"#))
        #expect(try agree(Nesting.self, #"{"outer":{"list":[{"leaf":1},2]}}"#))
        try agree(PathProbe.self, #"{"a":[1,{"b":[2]}],"c":{"d":null}}"#)
        try agree(PathProbe.self, #"{"a":[[1],[2,[3]]]}"#)
    }

    @Test("a decoder with any option changed is Foundation's alone")
    func nonDefaultOptions() throws {
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        #expect(!JSONFastDecoder.hasDefaultOptions(snake))
        struct Snake: Decodable, Equatable { let firstName: String }
        let decoded = try JSONFastDecoder.decode(Snake.self, from: Data(#"{"first_name":"a"}"#.utf8), as: snake)
        #expect(decoded.firstName == "a")
        let dates = JSONDecoder()
        dates.dateDecodingStrategy = .secondsSince1970
        #expect(!JSONFastDecoder.hasDefaultOptions(dates))
        let date = try JSONFastDecoder.decode([Date].self, from: Data("[10]".utf8), as: dates)
        #expect(date == [Date(timeIntervalSince1970: 10)])
        final class Subclass: JSONDecoder, @unchecked Sendable {}
        #expect(!JSONFastDecoder.hasDefaultOptions(Subclass()))
        #expect(JSONFastDecoder.hasDefaultOptions(JSONDecoder()))
    }

    // MARK: - Random documents

    static let numbers = [
        "0", "-0", "1", "-17", "1.0", "2.5", "-0.0", "1e2", "1E-2", "6.02e23", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "0.30000000000000004", "1e400", "4.9e-324", "1e-400",
    ]
    static let strings = [
        #""""#, #""plain""#, #""caf\u00e9""#, "\"café\"", #""\ud83d\ude00""#, #""a\"b\\c\/d\b\f\n\r\t""#, #""\u0000""#,
        #""\u212A""#, "\"K\"",
    ]

    static func randomValue(_ generator: inout SplitMix, depth: Int) -> String {
        let pick = Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator)
        switch pick {
        case 0: return "null"
        case 1: return Bool.random(using: &generator) ? "true" : "false"
        case 2: return numbers.randomElement(using: &generator)!
        case 3, 4: return strings.randomElement(using: &generator)!
        case 5:
            let count = Int.random(in: 0..<4, using: &generator)
            return "[" + (0..<count).map { _ in randomValue(&generator, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0..<4, using: &generator)
            return "{"
                + (0..<count).map { _ in
                    strings.randomElement(using: &generator)! + ":" + randomValue(&generator, depth: depth + 1)
                }.joined(separator: ",") + "}"
        }
    }
}
