import FixtureSupport
import GraphQLLanguage
import Testing

/// Compares the parser with graphql-core 3.2.8, the reference implementation the fixture server also runs.
///
/// graphql-core 3.2.8 follows the current draft of the specification here: full Unicode source text, control
/// characters inside strings and comments, variable-width `\u{…}` escapes and surrogate-pair escapes that must
/// combine. It therefore takes part in the comparison for all of those. The known divergences are:
/// - graphql-core raises IndexError (kind "crash") on a `\u` escape or a `\` cut off by the end of the
///   document; both reject it, so only acceptance is compared (ParserLexerTests checks our messages).
/// - graphql-core's reported locations use `str.splitlines()`, which also breaks lines at U+000B, U+000C,
///   U+001C-U+001E, U+0085, U+2028, U+2029 and misplaces errors at the start of a line. The checker script
///   therefore converts graphql-core's error *offset* with the specification's line terminators instead.
/// - Type-system definitions: graphql-core parses them (and may find a syntax error further on), we refuse the
///   first one where it starts. Acceptance is the same; the location then differs.
/// - Limits: the corpus stays below our nesting and token limits, which graphql-core does not have.
@Suite("Parser differential", .enabled(if: !ParserReferenceOracle.isSkipped))
struct ParserDifferentialTests {
    private struct Outcome {
        let document: GraphQLDocument?
        let error: GraphQLLanguageError?
    }

    @Test("the parser accepts exactly the documents graphql-core accepts, with the same errors")
    func agreesWithGraphQLCore() async throws {
        let errorTable = ParserErrorCases.all.map {
            ParserCorpusDocument(name: "error table", source: $0.source, isHandWritten: true)
        }
        let handWritten = try ParserCorpusLoader.handWritten() + errorTable
        let validSources = handWritten.map(\.source).filter { (try? GraphQLParser.parse($0)) != nil }
        let corpus = handWritten + ParserCorpusLoader.mutations(of: validSources, count: 30, seed: 0xC0FFEE)
        #expect(handWritten.count >= 200)

        let sources = corpus.map(\.source)
        // graphql-core runs for a second or more: wait for it off the cooperative pool the other tests share.
        let verdicts = try await offThePool { try ParserReferenceOracle.verdicts(for: sources) }
        var statistics = Statistics()
        for (entry, verdict) in zip(corpus, verdicts) {
            let outcome: Outcome
            do {
                outcome = Outcome(document: try GraphQLParser.parse(entry.source), error: nil)
            } catch {
                outcome = Outcome(document: nil, error: error)
            }
            compare(entry, outcome, verdict, into: &statistics)
        }
        print(statistics.report(corpusSize: corpus.count, handWritten: handWritten.count))
        print(statistics.messageDifferences.joined(separator: "\n"))
        // Generated documents are not held to exact agreement, but a drop in the rate is a regression.
        #expect(statistics.comparedLocations > 500)
        #expect(statistics.agreeingLocations * 100 >= statistics.comparedLocations * 99)
        #expect(statistics.agreeingMessages * 100 >= statistics.comparedMessages * 99)
    }

    private func compare(
        _ entry: ParserCorpusDocument,
        _ outcome: Outcome,
        _ verdict: ParserReferenceOracle.Verdict,
        into statistics: inout Statistics
    ) {
        let name = "\(entry.name): \(entry.source.debugDescription)"
        statistics.accepted += verdict.ok ? 1 : 0
        guard verdict.ok == (outcome.document != nil) else {
            let ours = outcome.error?.description ?? "accepted"
            let theirs = "\(verdict.kind) \(verdict.message ?? "")"
            Issue.record("acceptance differs for \(name): graphql-core \(theirs), ours \(ours)")
            return
        }
        statistics.agreeingAcceptance += 1
        if let document = outcome.document {
            #expect(document.canonicalText == verdict.canonical, "parsed values differ for \(name)")
            return
        }
        guard let error = outcome.error, verdict.kind != "crash" else {
            statistics.crashes += 1
            return
        }
        var theirs: GraphQLSourceLocation?
        if let line = verdict.line, let column = verdict.column {
            theirs = GraphQLSourceLocation(line: line, column: column)
        }
        let knownDivergence = error.code == .unsupportedDefinition && verdict.kind == "syntax"
        if knownDivergence {
            statistics.typeSystemDivergences += 1
            return
        }
        statistics.comparedLocations += 1
        if error.locations.first == theirs {
            statistics.agreeingLocations += 1
        } else if entry.isHandWritten {
            let expected = theirs.map(\.description) ?? "-"
            Issue.record("location differs for \(name): graphql-core \(expected), ours \(error)")
        }
        if verdict.kind == "syntax" {
            statistics.comparedMessages += 1
            if error.message == verdict.jsMessage {
                statistics.agreeingMessages += 1
            } else if entry.isHandWritten {
                let expected = verdict.jsMessage ?? "-"
                Issue.record("message differs for \(name): graphql-core \(expected), ours \(error.message)")
            } else {
                let expected = verdict.jsMessage ?? "-"
                statistics.messageDifferences.append("\(name)\n  graphql-core: \(expected)\n  ours: \(error.message)")
            }
        }
    }

    private struct Statistics {
        var accepted = 0
        var agreeingAcceptance = 0
        var crashes = 0
        var typeSystemDivergences = 0
        var comparedLocations = 0
        var agreeingLocations = 0
        var comparedMessages = 0
        var messageDifferences: [String] = []
        var agreeingMessages = 0

        func report(corpusSize: Int, handWritten: Int) -> String {
            """
            Parser differential vs graphql-core 3.2.8: \(corpusSize) documents (\(handWritten) hand-written, \
            \(corpusSize - handWritten) generated), \(accepted) accepted by graphql-core; acceptance agrees in \
            \(agreeingAcceptance)/\(corpusSize); \
            error locations agree in \(agreeingLocations)/\(comparedLocations), messages in \
            \(agreeingMessages)/\(comparedMessages); not compared: \(crashes) graphql-core crashes, \
            \(typeSystemDivergences) type-system documents with a later syntax error.
            """
        }
    }
}
