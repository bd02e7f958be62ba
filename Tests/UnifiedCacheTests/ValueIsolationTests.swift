import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

@Suite("A session's values are never another session's answer")
struct ValueIsolationTests {
    @Test("100 sessions doing 1,000 operations each over the same keys read only their own values")
    func hundredSessions() async throws {
        let harness = try await FacadeHarness("values-isolation")
        let hub = harness.hub
        let crossReads = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let owner = "user-\(index)"
                    let values = hub.session(
                        id: "s-\(index)", principal: VerifiedPrincipal(owner), credentials: .bearer("t-\(index)")
                    ).values
                    var wrong = 0
                    for operation in 0..<1_000 {
                        let key = "k\(operation % 10)"
                        if operation % 250 == 249 { await values.clear(forKey: key) }
                        let read = try await values.value(forKey: key, tags: ["t\(operation % 3)"]) {
                            "\(owner)/\(key)"
                        }
                        if read != "\(owner)/\(key)" { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(crossReads == 0)
        #expect(hub.values.statistics().memory.hits > 90_000)
    }
}
