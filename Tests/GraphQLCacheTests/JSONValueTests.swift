import Foundation
import GraphQLCache
import Testing

@Suite("GraphQLJSON: parsing, printing, literals")
struct JSONValueTests {
    private func parseFailure(_ text: String) -> GraphQLLanguageError? {
        do {
            _ = try GraphQLJSON(parsing: Data(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test("every kind of value parses, integers stay exact")
    func parsesEveryKind() throws {
        let value = try GraphQLJSON(
            parsing: #" {"n": null, "t": true, "f": false, "i": -42, "big": 9223372036854775807, "#
                + #""min": -9223372036854775808, "d": 1.5e3, "s": "a\"b", "a": [1, [2]], "o": {}} "#
        )
        #expect(value["n"] == .null)
        #expect(value["t"] == true)
        #expect(value["f"] == false)
        #expect(value["i"] == .int(-42))
        #expect(value["big"] == .int(.max))
        #expect(value["min"] == .int(.min))
        #expect(value["d"] == .double(1500))
        #expect(value["s"] == "a\"b")
        #expect(value["a"] == [1, [2]])
        #expect(value["o"] == .object([:]))
        #expect(value.objectValue?.keys == ["n", "t", "f", "i", "big", "min", "d", "s", "a", "o"])
    }

    @Test("integers beyond Int64 become doubles; huge exponents are refused")
    func numberRanges() throws {
        #expect(try GraphQLJSON(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try GraphQLJSON(parsing: "-0") == .int(0))
        #expect(try GraphQLJSON(parsing: "-0.0") == .double(-0.0))
        let error = try #require(parseFailure("1e400"))
        #expect(error.code == .invalidJSON)
        #expect(error.byteOffset == 0)
    }

    @Test("escapes, unicode escapes and surrogate pairs are decoded; raw UTF-8 is kept")
    func strings() throws {
        let value = try GraphQLJSON(parsing: #"["\n\t\\\/\b\f\r", "\u00e9\u20AC", "\ud83d\ude00", "héllo €"]"#)
        #expect(value == ["\n\t\\/\u{08}\u{0C}\r", "é€", "😀", "héllo €"])
    }

    @Test(
        "malformed input is refused with the byte offset of the problem",
        arguments: [
            ("", 0), ("[1,]", 3), ("{\"a\" 1}", 5), ("01", 1), ("[1 2]", 3), ("\"abc", 0), ("{\"a\":1}x", 7),
            ("tru", 0), ("[\"\\x\"]", 2), ("\"\\ud800\"", 1), ("\"\\udc00 \"", 1), ("-", 1), ("1.", 2),
            ("{,}", 1), ("nul", 0), ("\"a\u{01}\"", 2),
        ]
    )
    func malformed(text: String, offset: Int) throws {
        let error = try #require(parseFailure(text))
        #expect(error.code == .invalidJSON)
        #expect(error.byteOffset == offset)
    }

    @Test("invalid UTF-8 and runaway nesting are refused")
    func invalidBytesAndDepth() throws {
        let invalid = [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")]
        let error = try #require(throws: GraphQLLanguageError.self) { try GraphQLJSON(parsing: invalid) }
        #expect(error.code == .invalidJSON)
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let tooDeep = try #require(parseFailure(deep))
        #expect(tooDeep.byteOffset == GraphQLJSON.maximumParsingDepth)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(parseFailure(fine) == nil)
    }

    @Test("error messages never quote the input")
    func messagesHideValues() throws {
        let error = try #require(parseFailure(#"{"token": "secret-value", "x": tru}"#))
        #expect(!error.description.contains("secret"))
        #expect(error.description.hasPrefix("byte 34:"))
    }

    @Test("printing is compact, escapes what JSON requires and round-trips")
    func printing() throws {
        let value: GraphQLJSON = ["b": [1, 2.5, nil, true], "a": "q\"\n\u{01}é", "c": ["z": 1, "y": 2]]
        #expect(value.jsonText() == #"{"b":[1,2.5,null,true],"a":"q\"\n\u0001é","c":{"z":1,"y":2}}"#)
        #expect(value.jsonText(sortedKeys: true) == #"{"a":"q\"\n\u0001é","b":[1,2.5,null,true],"c":{"y":2,"z":1}}"#)
        #expect(try GraphQLJSON(parsing: value.jsonBytes()) == value)
        let numbers: GraphQLJSON = [20.0, -3.0, 2.5, 1e300, 7]
        #expect(numbers.jsonText() == "[20.0,-3.0,2.5,1e+300,7]")
        #expect(numbers.jsonText(sortedKeys: true) == "[20,-3,2.5,1e+300,7]")
    }

    @Test("objects are equal and hash alike whatever their member order")
    func orderInsensitiveEquality() {
        let first: GraphQLJSON = ["a": 1, "b": [true]]
        let second: GraphQLJSON = ["b": [true], "a": 1]
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != ["a": 1, "b": [false]])
        #expect(first != ["a": 1])
    }

    @Test("large objects are indexed and still looked up correctly")
    func largeObjects() {
        var object = GraphQLJSONObject()
        for index in 0..<40 {
            object["k\(index)"] = .int(Int64(index))
        }
        #expect(object["k37"] == 37)
        object["k37"] = nil
        #expect(object["k37"] == nil)
        #expect(object.count == 39)
        #expect(object["k38"] == 38)
    }

    @Test("argument literals resolve variables, enums, lists and objects")
    func literals() throws {
        let field = try #require(
            try GraphQLParser.parse(
                #"{ f(a: $v, b: [1, $missing], c: {x: $missing, y: ACTIVE}, d: 12345678901234567890) }"#
            )
            .operation(named: nil).selectionSet.selections.first
        )
        guard case .field(let parsed) = field else {
            throw StoreTestFailure("not a field")
        }
        let variables: GraphQLJSONObject = ["v": ["nested": true]]
        let values = parsed.arguments.map { GraphQLJSON(resolving: $0.value, variables: variables) }
        #expect(values[0] == ["nested": true])
        #expect(values[1] == [1, nil])
        #expect(values[2] == ["y": "ACTIVE"])
        #expect(values[3] == .double(Double("12345678901234567890")!))
        #expect(GraphQLJSON(resolving: .variable("missing"), variables: variables) == nil)
    }

    @Test("operation defaults fill in variables the request leaves out")
    func variableDefaults() throws {
        let operation = try GraphQLParser.parse("query Q($a: Int = 3, $b: String) { f(a: $a, b: $b) }")
            .operation(named: nil)
        #expect(operation.resolvedVariables(["b": "x"]) == ["a": 3, "b": "x"])
        #expect(operation.resolvedVariables(["a": 5]) == ["a": 5])
    }

    @Test("GraphQLJSON encodes and decodes through Foundation's coders")
    func codable() throws {
        let value: GraphQLJSON = ["a": [1, 2.5, "x", nil, false], "b": ["c": .null]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(GraphQLJSON.self, from: data) == value)
        #expect(try GraphQLJSON(parsing: data) == value)
    }
}
