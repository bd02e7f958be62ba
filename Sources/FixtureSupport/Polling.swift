import Foundation

/// How much slower than usual the tests run: `UCACHE_TEST_TIME_SCALE` (`make asan` sets 4, `make tsan` 2), 1 by
/// default. Polling deadlines and the injected upstream latencies that keep a call in flight are stretched by
/// it, so a sanitizer's slowdown never turns a window into a race. Never used for expiry, which moves a manual
/// clock.
public enum TestTiming {
    public static let scale: Double = {
        let text = ProcessInfo.processInfo.environment["UCACHE_TEST_TIME_SCALE"] ?? ""
        return Double(text).map { max(1, $0) } ?? 1
    }()

    /// `milliseconds` stretched by ``scale``.
    public static func milliseconds(_ milliseconds: Int) -> Int {
        Int((Double(milliseconds) * scale).rounded())
    }
}

/// Waits until a condition on state the test cannot await directly becomes true (the fixture server's
/// counters, a flight's waiters). It polls; it is never used to wait for time-based expiry, which tests drive
/// with a manual clock.
public func waitUntil(
    timeout: Duration = .seconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout * TestTiming.scale
    while clock.now < deadline {
        if try await condition() { return }
        // Polling the fixture server or the flight state; stretched under a sanitizer, where hundreds of tests
        // polling every 2 ms slow the process they wait on.
        try await Task.sleep(for: .milliseconds(TestTiming.milliseconds(2)))
    }
    throw FixtureError("condition not met within \(timeout)")
}
