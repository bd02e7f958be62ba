import CurlHTTP
import FixtureSupport
import Foundation
import Synchronization
import Testing

@testable import UnifiedCache

/// A one-shot signal a test and a factory meet at: `wait()` returns once `open()` was called (before or after).
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// Counts calls from concurrent factories.
final class CallCounter: Sendable {
    private let value = Atomic<Int>(0)

    @discardableResult
    func increment() -> Int { value.add(1, ordering: .relaxed).newValue }

    var count: Int { value.load(ordering: .relaxed) }
}

/// What a composed dashboard looks like to the tests: something a BFF builds from several upstream answers.
struct Dashboard: Codable, Sendable, Equatable {
    var owner: String
    var accountsBytes: Int
    var version: Int
}

/// A value whose encoding always fails.
struct Unencodable: Codable, Sendable {
    struct Refused: Error {}

    func encode(to encoder: any Encoder) throws { throw Refused() }
    init() {}
    init(from decoder: any Decoder) throws {}
}

/// Reads `/api/accounts` of the fixture as `user`, over the hub's HTTP client: a factory's real upstream call.
func fetchAccounts(_ hub: CacheHub, _ tenant: FixtureTenant, as user: FixtureTenant.User) async throws -> Int {
    var headers = CurlHTTPClient.Headers()
    headers.add(name: "Authorization", value: user.authorization)
    let response = try await hub.client.execute(
        CurlHTTPClient.Request(method: .get, url: tenant.url("/api/accounts"), headers: headers))
    guard response.status == 200 else { throw CancellationError() }
    return response.body.count
}

extension CacheHub {
    /// Whether the value store holds `key` in `scope` (fresh or stale), without counting a lookup.
    func holdsValue(_ key: String, in scope: CacheScope) -> Bool {
        valueStore.peek(key, in: scope).entry != nil
    }
}
