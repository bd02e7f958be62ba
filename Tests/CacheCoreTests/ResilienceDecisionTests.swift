import CacheCore
import Testing

@Suite("Resilience: what an entry is good for, and which options are valid")
struct ResilienceDecisionTests {
    private let storedAt = CacheInstant(nanoseconds: 1_000_000_000)
    private var expiresAt: CacheInstant { storedAt.advanced(by: .seconds(100)) }

    private func at(_ seconds: Double) -> CacheInstant {
        storedAt.advanced(by: .milliseconds(Int64(seconds * 1000)))
    }

    @Test("With no option on, an entry is fresh until its expiry and unusable after it")
    func defaultsAreFreshThenUnusable() {
        let options = CacheResilience.none
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(99.9)) == .fresh)
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(100)) == .unusable)
        #expect(options.freshness(storedAt: storedAt, expiresAt: nil, now: at(1_000_000)) == .fresh)
        #expect(!options.isEnabled)
        #expect(options.staleRetention == .zero)
    }

    @Test("An entry is usable for fail-safe through its window past expiry, and not one instant longer")
    func failSafeWindow() {
        let options = CacheResilience(failSafeMaxDuration: .seconds(3600))
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(100)) == .staleUsable)
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(3700)) == .staleUsable)
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(3700.001)) == .unusable)
        #expect(options.staleRetention == .seconds(3600))
    }

    @Test("A hit past the eager-refresh share of its lifetime is marked for one refresh, earlier hits are not")
    func eagerRefreshThreshold() {
        let options = CacheResilience(eagerRefreshThreshold: 0.9)
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(89.9)) == .fresh)
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(90)) == .refreshEagerly)
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(99.9)) == .refreshEagerly)
        #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(100)) == .unusable)
        // An entry that never expires has no share to pass.
        #expect(options.freshness(storedAt: storedAt, expiresAt: nil, now: at(1_000_000)) == .fresh)
    }

    @Test("A per-call value wins over a domain's, which wins over the hub's, option by option")
    func mergeOrder() {
        let hub = CacheResilience(failSafeMaxDuration: .seconds(60), softTimeout: .milliseconds(500))
        let domain = CacheResilience(
            failSafeMaxDuration: .seconds(3600), failSafeThrottleDuration: .seconds(5), eagerRefreshThreshold: 0.8)
        let call = CacheResilience(softTimeout: .milliseconds(100))
        let merged = call.merged(over: domain.merged(over: hub))
        #expect(merged.failSafeMaxDuration == .seconds(3600))
        #expect(merged.failSafeThrottleDuration == .seconds(5))
        #expect(merged.softTimeout == .milliseconds(100))
        #expect(merged.eagerRefreshThreshold == 0.8)
        #expect(merged.hardTimeout == nil)
    }

    @Test("Valid options pass validation unchanged")
    func validOptionsPass() throws {
        let options = CacheResilience(
            failSafeMaxDuration: .seconds(3600), softTimeout: .milliseconds(100), hardTimeout: .seconds(2),
            eagerRefreshThreshold: 0.9)
        #expect(try options.validated() == options)
        #expect(try CacheResilience.none.validated() == .none)
    }

    @Test(
        "Out-of-range options are refused with the resilience error code",
        arguments: [
            CacheResilience(eagerRefreshThreshold: 0),
            CacheResilience(eagerRefreshThreshold: 1),
            CacheResilience(eagerRefreshThreshold: 1.5),
            CacheResilience(eagerRefreshThreshold: .nan),
            CacheResilience(failSafeMaxDuration: .seconds(-1)),
            CacheResilience(failSafeMaxDuration: .seconds(10), failSafeThrottleDuration: .zero),
            CacheResilience(softTimeout: .milliseconds(-5)),
            CacheResilience(hardTimeout: .zero),
            CacheResilience(softTimeout: .seconds(2), hardTimeout: .seconds(1)),
        ])
    func invalidOptionsAreRefused(options: CacheResilience) {
        let error = #expect(throws: CacheCoreError.self) { try options.validated() }
        #expect(error?.code == .invalidResilience)
    }

    @Test("An invalid threshold that reaches the decision unvalidated never triggers a refresh")
    func unvalidatedThresholdIsHarmless() {
        for threshold in [0, -1, 1, 2, Double.nan] {
            let options = CacheResilience(eagerRefreshThreshold: threshold)
            #expect(options.freshness(storedAt: storedAt, expiresAt: expiresAt, now: at(99)) == .fresh)
        }
    }
}
