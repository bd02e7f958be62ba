import Foundation
import FuzzTargets
import Testing

/// The committed fuzz inputs — the seed corpora (`Fuzz/Corpus/<target>/`) and every input the fuzzer once crashed on
/// (`Fuzz/Regressions/<target>/`) — replayed through the same entry libFuzzer calls (`make fuzz`), without
/// sanitizers: a decoder that traps again fails the suite, a broken invariant is reported here.
@Suite("Fuzz inputs: the seed corpora and every crash input the fuzzer found, replayed through their targets")
struct FuzzRegressionTests {
    @Test(
        "every committed input runs through its target without a trap or a broken invariant",
        arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) async throws {
        let inputs = try FuzzInputs.committed(for: target)
        #expect(!inputs.isEmpty, "no committed input for \(target.rawValue)")
        for input in inputs {
            let violations = await FuzzInputs.run(target, input.bytes)
            #expect(violations.isEmpty, "\(input.path): \(violations)")
        }
    }
}

enum FuzzInputs {
    /// The repository's `Fuzz/` folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func committed(for target: FuzzTarget) throws -> [(path: String, bytes: [UInt8])] {
        var inputs: [(path: String, bytes: [UInt8])] = []
        for folder in ["Corpus", "Regressions"] {
            let directory = root.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
            guard FileManager.default.fileExists(atPath: directory.path) else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                let file = directory.appendingPathComponent(name)
                inputs.append(("\(folder)/\(target.rawValue)/\(name)", Array(try Data(contentsOf: file))))
            }
        }
        return inputs
    }

    /// Runs the target on a thread of its own: the targets wait for the hub's async work, which must not hold one of
    /// the few threads of the concurrency pool.
    static func run(_ target: FuzzTarget, _ input: [UInt8]) async -> [String] {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: target.run(input)) }.start()
        }
    }
}
