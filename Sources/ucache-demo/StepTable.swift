import FixtureSupport
import Foundation

/// Prints one row per step — what was asked, where the answer came from, how long it took, how many upstream
/// requests the fixture counted — and collects the expectations that failed.
final class StepTable {
    private let tenant: FixtureTenant
    private var lastRequestCount = 0
    private(set) var failures: [String] = []

    init(tenant: FixtureTenant) {
        self.tenant = tenant
    }

    static let header =
        "step  what                                               source         latency    upstream calls"

    func start() async throws {
        lastRequestCount = try await tenant.counters().requests
        print(Self.header)
        print(String(repeating: "-", count: Self.header.count))
    }

    /// Runs `body`, prints its row, and checks the source and the number of upstream calls.
    func step(
        _ number: String,
        _ what: String,
        expectSource: String? = nil,
        expectUpstream: Int? = nil,
        _ body: () async throws -> String
    ) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let source = try await body()
        let elapsed = clock.now - started
        let count = try await tenant.counters().requests
        let upstream = count - lastRequestCount
        lastRequestCount = count
        print(
            number.padding(toLength: 6, withPad: " ", startingAt: 0)
                + what.padding(toLength: 51, withPad: " ", startingAt: 0)
                + source.padding(toLength: 15, withPad: " ", startingAt: 0)
                + Self.format(elapsed).padding(toLength: 11, withPad: " ", startingAt: 0)
                + "\(upstream)"
        )
        if let expectSource, source != expectSource {
            failures.append("step \(number): expected source \(expectSource), got \(source)")
        }
        if let expectUpstream, upstream != expectUpstream {
            failures.append("step \(number): expected \(expectUpstream) upstream calls, got \(upstream)")
        }
    }

    /// Records an expectation about data, printed under the step.
    func expect(_ condition: Bool, _ message: String) {
        print("      ✓ \(message)".replacingOccurrences(of: "✓", with: condition ? "✓" : "✗"))
        if !condition { failures.append(message) }
    }

    static func format(_ duration: Duration) -> String {
        let micros = Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
        return micros >= 1000 ? String(format: "%.2f ms", micros / 1000) : String(format: "%.0f µs", micros)
    }
}
