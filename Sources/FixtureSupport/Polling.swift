import Foundation

/// Waits until a condition on state the test cannot await directly becomes true (the fixture server's
/// counters, a flight's waiters). It polls; it is never used to wait for time-based expiry, which tests drive
/// with a manual clock.
public func waitUntil(
    timeout: Duration = .seconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(2))  // polling the fixture server or the flight state
    }
    throw FixtureError("condition not met within \(timeout)")
}
