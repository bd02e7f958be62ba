import Foundation

/// The figures of one suite: rows of named measurements.
struct BenchReport: Codable {
    struct Row: Codable {
        var name: String
        var values: [String: Double]
    }

    var suite: String
    var machine: String
    var columns: [String]
    var rows: [Row]
    var notes: [String]

    var table: String {
        var lines = ["== \(suite) (\(machine))"]
        let nameWidth = max(12, rows.map(\.name.count).max() ?? 0) + 2
        lines.append(
            "".padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + columns.map { $0.padding(toLength: 14, withPad: " ", startingAt: 0) }.joined())
        for row in rows {
            let cells = columns.map { column -> String in
                guard let value = row.values[column] else {
                    return "-".padding(toLength: 14, withPad: " ", startingAt: 0)
                }
                let text = value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
                return text.padding(toLength: 14, withPad: " ", startingAt: 0)
            }
            lines.append(row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + cells.joined())
        }
        lines.append(contentsOf: notes.map { "  \($0)" })
        return lines.joined(separator: "\n")
    }

    static var machineDescription: String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        return
            "\(cores) cores, \(String(format: "%.0f", memory)) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
    }
}

/// Latency samples and the process CPU time spent while taking them.
struct Samples {
    private(set) var nanoseconds: [UInt64] = []

    mutating func append(_ value: UInt64) { nanoseconds.append(value) }
    mutating func reserve(_ count: Int) { nanoseconds.reserveCapacity(count) }
    mutating func append(contentsOf other: Samples) { nanoseconds.append(contentsOf: other.nanoseconds) }

    /// The value below which `fraction` of the samples fall (nearest rank).
    func percentile(_ fraction: Double) -> Double {
        guard !nanoseconds.isEmpty else { return 0 }
        let sorted = nanoseconds.sorted()
        let rank = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[rank])
    }
}

/// Process CPU time (user + system), to charge the client for what it burns per request.
enum ProcessCPU {
    static func now() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// Monotonic nanoseconds.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
