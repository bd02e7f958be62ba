import FixtureSupport
import Foundation

/// graphql-core 3.2.8's verdict on documents, obtained by running `Fixtures/tools/graphql_parse_check.py` once
/// for a whole batch.
enum ParserReferenceOracle {
    struct Verdict: Decodable {
        /// Accepted: parsed and every definition executable.
        let ok: Bool
        /// "ok", "syntax", "unsupported" (parsed, but with a type-system definition) or "crash".
        let kind: String
        let line: Int?
        let column: Int?
        /// graphql-core's message; `jsMessage` is the same in graphql-js wording, as the Swift parser writes it.
        let message: String?
        let jsMessage: String?
        /// For accepted documents: the document in the Swift canonical form, printed from graphql-core's AST.
        let canonical: String?
    }

    /// Whether the differential tests may be skipped: only when asked explicitly, so CI never skips silently.
    static var isSkipped: Bool {
        ProcessInfo.processInfo.environment["UCACHE_SKIP_GRAPHQL_CORE"] == "1"
    }

    static func verdicts(for documents: [String]) throws -> [Verdict] {
        guard let script = ParserTestPaths.checkerScript else {
            throw ParserTestFailure("Fixtures/tools/graphql_parse_check.py not found")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("graphql-parse-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("input.json")
        let output = directory.appendingPathComponent("output.json")
        let errors = directory.appendingPathComponent("errors.txt")
        try JSONEncoder().encode(documents).write(to: input)
        try Data().write(to: output)
        try Data().write(to: errors)

        // posix_spawn, not Foundation's Process (see FixtureSupport's ChildProcess); the shell redirects the files.
        let process = try ChildProcess.spawn(
            "/bin/sh",
            [
                "-c", "exec python3 \"$0\" < \"$1\" > \"$2\" 2> \"$3\"", script.path, input.path, output.path,
                errors.path,
            ])
        let terminationStatus = process.wait()
        guard terminationStatus == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw ParserTestFailure(
                "graphql_parse_check.py failed (\(terminationStatus)); is graphql-core 3.2.8 installed "
                    + "(pip install graphql-core==3.2.8)? Set UCACHE_SKIP_GRAPHQL_CORE=1 to skip.\n\(message)"
            )
        }
        let verdicts = try JSONDecoder().decode([Verdict].self, from: Data(contentsOf: output))
        guard verdicts.count == documents.count else {
            throw ParserTestFailure("expected \(documents.count) verdicts, got \(verdicts.count)")
        }
        return verdicts
    }
}
