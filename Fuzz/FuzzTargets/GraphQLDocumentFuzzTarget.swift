import Foundation
import GraphQLCache

/// A GraphQL document as a caller (or its client) sends it: the parser, the executable checks of each operation, and
/// the canonical printer, whose text must parse again and print to itself.
enum GraphQLDocumentFuzzTarget {
    static func run(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        guard let document = try? GraphQLParser.parse(String(decoding: input, as: UTF8.self)) else { return [] }
        for operation in document.operations { _ = try? document.prepare(operationName: operation.name) }
        let canonical = document.canonicalText
        do {
            let reprinted = try GraphQLParser.parse(canonical).canonicalText
            violations.expect(reprinted == canonical, "the canonical text prints as \(reprinted), not \(canonical)")
        } catch {
            violations.expect(false, "the canonical text \(canonical) does not parse: \(error)")
        }
        return violations.list
    }

    /// A few documents, plus every document of the parser's test corpus when run from the repository's root.
    static func seeds() -> [(name: String, bytes: [UInt8])] {
        var documents: [(String, String)] = [
            ("summary", "query AccountSummary { accounts { id name balance } }"),
            (
                "variables",
                "query Tx($id: ID!, $first: Int = 10, $f: [Filter!] = [{kind: CARD, min: 1.5e3}]) { account(id: $id) { transactions(first: $first, filter: $f) @include(if: true) { edges { node { ...T } } } } } fragment T on Transaction { id amount ... on Card { last4 } }"
            ),
            (
                "block-string",
                "mutation { note(text: \"\"\"\n  line \\\"\"\" one\n\n  two\n\"\"\", tags: [\"a\\u00e9\", null, true, ENUM]) { ok } }"
            ),
        ]
        let corpus = URL(fileURLWithPath: "Tests/GraphQLCacheTests/ParserCorpus")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path))?.sorted() ?? []
        for file in files where file.hasSuffix(".graphql") {
            guard let text = try? String(contentsOf: corpus.appendingPathComponent(file), encoding: .utf8) else {
                continue
            }
            // A few of each file: the fuzzer's mutations do the rest.
            let parts = text.components(separatedBy: "\n# ====").prefix(6)
            for (index, part) in parts.enumerated() where !part.isEmpty {
                documents.append(("\(file.dropLast(8))-\(index)", part))
            }
        }
        return documents.map { ($0.0, Array($0.1.utf8)) }
    }
}

/// An upstream's GraphQL answer: the JSON parser, the response reader (`data`, `errors`, `extensions`), and the
/// serializer, whose output must parse to the same value and serialize to itself.
enum GraphQLResponseFuzzTarget {
    static func run(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        _ = GraphQLResponseReading.read(input)
        guard let value = try? GraphQLJSON(parsing: input) else { return [] }
        for sorted in [false, true] {
            let bytes = value.jsonBytes(sortedKeys: sorted)
            do {
                let again = try GraphQLJSON(parsing: bytes)
                // Sorted output is the canonical form (integral doubles are written as integers): only the plain
                // form keeps every value's kind.
                violations.expect(sorted || again == value, "the serialized JSON parses to another value")
                violations.expect(again.jsonBytes(sortedKeys: sorted) == bytes, "the JSON serializes differently twice")
            } catch {
                violations.expect(false, "the serialized JSON does not parse: \(error)")
            }
        }
        return violations.list
    }

    static func seeds() -> [(name: String, bytes: [UInt8])] {
        let bodies: [(String, String)] = [
            ("data", #"{"data":{"accounts":[{"__typename":"Account","id":"1","name":"Everyday","balance":12.5}]}}"#),
            (
                "errors",
                #"{"data":null,"errors":[{"message":"Denied","locations":[{"line":1,"column":2}],"path":["accounts",0],"extensions":{"code":"FORBIDDEN"}}]}"#
            ),
            (
                "partial",
                #"{"data":{"a":null,"b":[1,-2.5e-3,true,false,"\u00e9\ud83d\ude00\n"]},"errors":[{"message":"x"}],"extensions":{"cost":3}}"#
            ),
            ("not-object", "[1, 2, 3]"),
            ("numbers", #"{"data":{"big":123456789012345678901234567890,"small":-0.0,"exp":1E+308,"tiny":5e-324}}"#),
        ]
        return bodies.map { ($0.0, Array($0.1.utf8)) }
    }
}
