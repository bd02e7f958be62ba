import Foundation
import FuzzTargets
import Synchronization

#if UCACHE_LIBFUZZER
    import CLibFuzzer
#endif

/// `ucache-fuzz <target> [arguments]`: under libFuzzer (built by scripts/fuzz.sh with `-DUCACHE_LIBFUZZER`) the
/// arguments are libFuzzer's (corpus directories, `-max_total_time=…`, `-dict=…`, crash files to replay); in a
/// normal build the arguments are files or directories whose inputs are run once each (replaying a crash input
/// without sanitizers). `ucache-fuzz seed <directory>` writes the seed corpora; `ucache-fuzz list` names the targets.
@main
enum FuzzMain {
    /// The target of this process, for libFuzzer's callback (a C function pointer cannot capture it). Child processes
    /// libFuzzer starts (`-fork`, `-merge`) find it in ``environmentVariable``.
    static let selected = Mutex<FuzzTarget?>(nil)
    static let environmentVariable = "UCACHE_FUZZ_TARGET"

    static func main() {
        var arguments = CommandLine.arguments
        let command = arguments.count > 1 ? arguments[1] : ""
        switch command {
        case "list":
            for target in FuzzTarget.allCases { print(target.rawValue) }
            return
        case "seed":
            guard arguments.count == 3 else { usage() }
            writeSeeds(into: arguments[2])
            return
        default:
            break
        }
        let target: FuzzTarget
        if let named = FuzzTarget(rawValue: command) {
            target = named
            arguments.remove(at: 1)
        } else if let inherited = ProcessInfo.processInfo.environment[environmentVariable].flatMap(FuzzTarget.init) {
            target = inherited
        } else {
            usage()
        }
        setenv(environmentVariable, target.rawValue, 1)
        selected.withLock { $0 = target }
        exit(drive(arguments))
    }

    static func usage() -> Never {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        FileHandle.standardError.write(Data("usage: ucache-fuzz <\(names)> [files or libFuzzer arguments]\n".utf8))
        FileHandle.standardError.write(Data("       ucache-fuzz seed <directory> | ucache-fuzz list\n".utf8))
        exit(2)
    }

    /// One input through the selected target; a broken invariant aborts, so libFuzzer keeps the input as a crash.
    static func runOne(_ input: [UInt8]) {
        guard let target = selected.withLock({ $0 }) else { return }
        let violations = target.run(input)
        if !violations.isEmpty {
            fatalError("\(target.rawValue): invariant broken: \(violations.joined(separator: "; "))")
        }
    }

    #if UCACHE_LIBFUZZER
        static func drive(_ arguments: [String]) -> Int32 {
            var pointers = arguments.map { strdup($0) } + [nil]
            var argc = Int32(arguments.count)
            return pointers.withUnsafeMutableBufferPointer { buffer in
                var argv = buffer.baseAddress
                return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    FuzzMain.runOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                    return 0
                }
            }
        }
    #else
        /// Runs every file named (directories: every file in them, sorted) once; exits 1 when one broke an invariant.
        static func drive(_ arguments: [String]) -> Int32 {
            var files: [String] = []
            for path in arguments.dropFirst() {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted() ?? []
                    files += names.map { "\(path)/\($0)" }
                } else {
                    files.append(path)
                }
            }
            guard let target = selected.withLock({ $0 }) else { return 2 }
            var failed = 0
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                let violations = target.run(Array(data))
                if !violations.isEmpty {
                    failed += 1
                    print("\(file): \(violations.joined(separator: "; "))")
                }
            }
            print("\(target.rawValue): \(files.count) inputs, \(failed) broke an invariant")
            return failed == 0 ? 0 : 1
        }
    #endif

    /// Writes each target's seeds to `<directory>/<target>/<name>` (run from the repository's root: the GraphQL
    /// document seeds include the parser's test corpus).
    static func writeSeeds(into directory: String) {
        for target in FuzzTarget.allCases {
            let folder = URL(fileURLWithPath: directory).appendingPathComponent(target.rawValue)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for seed in target.seeds() {
                try? Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name))
            }
            print("\(target.rawValue): \(target.seeds().count) seeds")
        }
    }
}
