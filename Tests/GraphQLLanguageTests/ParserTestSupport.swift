import Foundation
import GraphQLLanguage
import Testing

/// Locations of the test's data files, found from this source file so no resources need bundling.
enum ParserTestPaths {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let corpusDirectory = testsDirectory.appendingPathComponent("ParserCorpus")

    /// `Fixtures/tools/graphql_parse_check.py`, searched upwards from the tests directory.
    static var checkerScript: URL? {
        var directory = testsDirectory
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("Fixtures/tools/graphql_parse_check.py")
            if FileManager.default.fileExists(atPath: candidate.path) {
                return candidate
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}

/// The error parsing `source` throws, or nil if it parses.
func parseError(_ source: String, configuration: GraphQLParser.Configuration = .init()) -> GraphQLLanguageError? {
    do {
        _ = try GraphQLParser(configuration: configuration).parse(source)
        return nil
    } catch {
        return error
    }
}

/// The selections of a document's only operation, for compact assertions.
func onlyOperation(_ source: String) throws -> GraphQLOperationDefinition {
    try GraphQLParser.parse(source).operation(named: nil)
}

/// The first field of a document's only operation.
func firstField(_ source: String) throws -> GraphQLField {
    let operation = try onlyOperation(source)
    guard case .field(let field) = operation.selectionSet.selections.first else {
        throw ParserTestFailure("the first selection is not a field")
    }
    return field
}

/// The value of argument `name` of the first field of `source`.
func argumentValue(_ source: String, _ name: String = "x") throws -> GraphQLValueLiteral {
    let field = try firstField(source)
    return try #require(field.argument(named: name))
}

struct ParserTestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
