import CacheCore
import Testing

@Suite("Resilience: the fail-safe throttle and the eager-refresh gate")
struct ResilienceGateTests {
    private let start = CacheInstant(nanoseconds: 1_000_000_000)

    @Test("A throttled key stays throttled for its period, then is asked again")
    func throttlePeriod() {
        let throttle = FailSafeThrottle<String>()
        #expect(!throttle.isThrottled("a", at: start))
        throttle.throttle("a", for: .seconds(30), now: start)
        #expect(throttle.isThrottled("a", at: start.advanced(by: .seconds(29))))
        #expect(!throttle.isThrottled("b", at: start))
        #expect(!throttle.isThrottled("a", at: start.advanced(by: .seconds(30))))
        #expect(throttle.count == 0)
    }

    @Test("Lifting a throttle (an answer came back, a scope was cleared) asks the upstream again at once")
    func lift() {
        let throttle = FailSafeThrottle<String>()
        throttle.throttle("s1/a", for: .seconds(30), now: start)
        throttle.throttle("s1/b", for: .seconds(30), now: start)
        throttle.throttle("s2/a", for: .seconds(30), now: start)
        throttle.lift("s1/a")
        #expect(!throttle.isThrottled("s1/a", at: start))
        throttle.lift { $0.hasPrefix("s1/") }
        #expect(!throttle.isThrottled("s1/b", at: start))
        #expect(throttle.isThrottled("s2/a", at: start))
    }

    @Test("The throttle remembers at most its capacity, forgetting ended periods first")
    func throttleIsBounded() {
        let throttle = FailSafeThrottle<Int>(capacity: 100)
        for key in 0..<100 { throttle.throttle(key, for: .seconds(1), now: start) }
        throttle.throttle(1000, for: .seconds(60), now: start.advanced(by: .seconds(2)))
        #expect(throttle.count == 1)
        for key in 0..<500 { throttle.throttle(key, for: .seconds(60), now: start) }
        #expect(throttle.count <= 100)
    }

    @Test("One refresh starts per stored entry however many hits ask; the refreshed entry may start the next")
    func gateAdmitsOnePerEntry() async {
        let gate = EagerRefreshGate<String>()
        let start = start
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask { gate.begin("k", entryStoredAt: start) }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 1)
        gate.end("k", succeeded: true)
        // A hit that read the old entry just before the refresh landed does not start another.
        #expect(!gate.begin("k", entryStoredAt: start))
        #expect(gate.begin("k", entryStoredAt: start.advanced(by: .seconds(1))))
        #expect(gate.runningCount == 1)
    }

    @Test("A failed refresh is forgotten, so a later hit may try again")
    func failedRefreshIsForgotten() {
        let gate = EagerRefreshGate<String>()
        #expect(gate.begin("k", entryStoredAt: start))
        #expect(!gate.begin("k", entryStoredAt: start))
        gate.end("k", succeeded: false)
        #expect(gate.begin("k", entryStoredAt: start))
    }
}

@Suite("Resilience: answers counted per reason")
struct StaleAnswerCountsTests {
    @Test("Each reason counts its own answers, concurrently and exactly")
    func countsPerReason() async {
        let counts = StaleAnswerCounts()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask { counts.record(CacheStaleReason.allCases[index % 3]) }
            }
        }
        counts.record(.failSafe)
        #expect(counts.count(.failSafe) == 101)
        #expect(counts.count(.softTimeout) == 100)
        #expect(counts.count(.eagerRefresh) == 100)
        #expect(counts.counts.map(\.reason.rawValue) == ["fail_safe", "soft_timeout", "eager_refresh"])
    }
}
