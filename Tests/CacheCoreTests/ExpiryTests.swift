import CacheCore
import Testing

@Suite("Expiry and timeouts")
struct ExpiryTests {
    @Test("an entry is fresh before its timeout and stale from the timeout on")
    func freshThenStale() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(30)))

        clock.advance(seconds: 29.999)
        #expect(store.lookup("k", in: alice).isFresh)
        clock.advance(seconds: 0.001)
        let lookup = store.lookup("k", in: alice)
        #expect(lookup.isStale)
        #expect(lookup.string == "v")
    }

    @Test("a stale entry stays available until it is replaced, and the replacement is fresh")
    func staleUntilReplaced() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("old", "k", in: alice, CacheEntryMetadata(timeout: .seconds(10)))
        clock.advance(seconds: 3600)
        #expect(store.lookup("k", in: alice).string == "old")

        store.put("new", "k", in: alice, CacheEntryMetadata(timeout: .seconds(10)))
        let lookup = store.lookup("k", in: alice)
        #expect(lookup.isFresh)
        #expect(lookup.string == "new")
    }

    @Test(".never stays fresh however far the clock moves")
    func neverExpires() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .never))

        clock.advance(seconds: 10 * 365 * 24 * 3600)
        let entry = try #require(store.lookup("k", in: alice).freshEntry)
        #expect(entry.expiresAt == nil)
        #expect(entry.metadata.timeout == .never)
    }

    @Test(".useDefault resolves to the store's default timeout (300 s unless configured)")
    func useDefaultResolves() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        let custom = try makeStore(clock: clock) { $0.defaultTimeout = .seconds(60) }
        store.put("v", "k", in: alice)
        custom.put("v", "k", in: alice, CacheEntryMetadata(timeout: .useDefault))

        #expect(store.peek("k", in: alice).entry?.metadata.timeout == .seconds(300))
        clock.advance(seconds: 60)
        #expect(custom.lookup("k", in: alice).isStale)
        #expect(store.lookup("k", in: alice).isFresh)
        clock.advance(seconds: 240)
        #expect(store.lookup("k", in: alice).isStale)
    }

    @Test("a zero timeout stores an entry that is stale at once (kept for revalidation)")
    func zeroTimeoutIsStaleAtOnce() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(0)))

        #expect(store.lookup("k", in: alice).isStale)
    }

    @Test("negative, NaN and infinite timeouts are refused with a typed outcome and the old value kept")
    func invalidTimeoutsRejected() throws {
        let store = try makeStore()
        store.put("kept", "k", in: alice)

        for timeout in [Timeout.seconds(-1), .seconds(.nan), .seconds(.infinity)] {
            let outcome = store.put("bad", "k", in: alice, CacheEntryMetadata(timeout: timeout))
            #expect(outcome == .rejectedInvalid(.invalidTimeout))
        }
        #expect(store.lookup("k", in: alice).string == "kept")
        #expect(store.statistics(for: alice).inserts == 1)
    }

    @Test("an entry reports its age, storage dates and staleness from the injected clocks")
    func ageAndDates() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        let storedDate = clock.wallClockNow()
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(10)))
        clock.advance(by: .seconds(15))

        let entry = try #require(store.peek("k", in: alice).entry)
        let now = clock.now()
        #expect(entry.storedAtDate == storedDate)
        #expect(entry.age(at: now) == .seconds(15))
        #expect(entry.staleness(at: now) == .seconds(5))
        #expect(!entry.isFresh(at: now))
        #expect(now.seconds(since: entry.storedAt) == 15)
    }

    @Test("an absurdly long timeout is clamped instead of overflowing")
    func hugeTimeoutDoesNotOverflow() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(1e300)))

        clock.advance(seconds: 100 * 365 * 24 * 3600)
        #expect(store.lookup("k", in: alice).isFresh)
    }

    @Test("Timeout.resolved keeps explicit values and never returns useDefault")
    func timeoutResolution() {
        #expect(Timeout.seconds(5).resolved(default: .seconds(300)) == .seconds(5))
        #expect(Timeout.never.resolved(default: .seconds(300)) == .never)
        #expect(Timeout.useDefault.resolved(default: .seconds(300)) == .seconds(300))
        #expect(Timeout.useDefault.resolved(default: .useDefault) == .never)
    }
}
