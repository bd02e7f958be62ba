import Foundation

/// Runs blocking work (starting a process, waiting for a port, reading a child's output until it exits) on a thread
/// of its own and awaits its result.
///
/// Swift Testing runs every test of the process on the cooperative pool, which has one thread per core: on a
/// 2-core machine two tests blocked in `waitUntilExit()` or a polling loop stall every other test, and their
/// deadlines pass for no fault of the code under test (most visibly under the sanitizers, which slow everything).
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = "off the cooperative pool"
        thread.start()
    }
}
