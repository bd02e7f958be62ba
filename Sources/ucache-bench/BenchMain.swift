import Foundation

/// `ucache-bench SUITE [options]` — measures UnifiedCache's speed. Figures are for people (a table) or
/// machines (`--json`); nothing here is asserted, it is reported.
@main
struct BenchMain {
    /// A synchronous entry that waits for the suites on the main thread: the process never parks its main thread in
    /// `dispatch_main`, which valgrind (`--tool=callgrind`, the instruction counts of `l2 --profile-hits`) cannot
    /// run. The suites are nonisolated and ran on the global executor before too.
    static func main() {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await run()
            done.signal()
        }
        done.wait()
    }

    static func run() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let suiteName = arguments.first, suiteName != "--help", suiteName != "-h" else {
            print(usage)
            return
        }
        let options = BenchOptions(arguments.dropFirst())
        let suites: [String: any BenchSuite] = [
            "transport": TransportSuite(), "rest": RESTSuite(), "graphql": GraphQLSuite(), "unified": UnifiedSuite(),
            "sessions": SessionsSuite(), "soak": SoakSuite(), "replicas": ReplicasSuite(), "l2": SecondLevelSuite(),
            "values": ValuesSuite(), "resilience": ResilienceSuite(), "bus": BusSuite(),
        ]
        // The soak runs a million requests by default, the bus starts processes: only when asked for by name.
        let selected = suiteName == "all" ? suites.keys.sorted().filter { $0 != "soak" && $0 != "bus" } : [suiteName]
        var reports: [BenchReport] = []
        for name in selected {
            guard let suite = suites[name] else {
                FileHandle.standardError.write(Data("unknown suite '\(name)'\n\n\(usage)\n".utf8))
                exit(2)
            }
            if options.help {
                print(suite.help)
                continue
            }
            do {
                reports.append(try await suite.run(options: options))
            } catch {
                FileHandle.standardError.write(Data("suite \(name) failed: \(error)\n".utf8))
                exit(1)
            }
        }
        if options.json {
            let data = try? JSONEncoder.pretty.encode(reports)
            print(String(decoding: data ?? Data(), as: UTF8.self))
        } else {
            for report in reports { print(report.table) }
        }
    }

    static let usage = """
        usage: ucache-bench SUITE [--json] [--help] [suite options]
        suites: transport, rest, graphql, unified, sessions, soak, replicas, l2, values, resilience, bus,
            all (all but soak and bus)
        Run `ucache-bench SUITE --help` for a suite's method and options. Build with -c release.
        """
}

extension JSONEncoder {
    static var pretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}

/// Options common to all suites plus `--name value` pairs for suite-specific ones.
struct BenchOptions {
    var json = false
    var help = false
    var values: [String: String] = [:]

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--json": json = true
            case "--help", "-h": help = true
            default:
                if argument.hasPrefix("--") { values[String(argument.dropFirst(2))] = iterator.next() ?? "" }
            }
        }
    }

    func int(_ name: String, default value: Int) -> Int { values[name].flatMap(Int.init) ?? value }
    func string(_ name: String) -> String? {
        values[name] ?? ProcessInfo.processInfo.environment["UCACHE_BENCH_\(name.uppercased())"]
    }
}

protocol BenchSuite: Sendable {
    var help: String { get }
    func run(options: BenchOptions) async throws -> BenchReport
}
