import CacheCore
import Testing

@Suite("Revalidation refresh (HTTP 304)")
struct RefreshTests {
    @Test("a refresh makes a stale entry fresh again with the same value and new validators")
    func refreshRestoresFreshness() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        let metadata = CacheEntryMetadata(timeout: .seconds(60), validators: CacheValidators(etag: "\"v1\""))
        store.put("body", "k", in: alice, metadata)
        clock.advance(seconds: 90)
        #expect(store.lookup("k", in: alice).isStale)

        let outcome = store.refresh(key: "k", scope: alice, validators: CacheValidators(etag: "\"v2\""))

        guard case .refreshed(let entry) = outcome else {
            Issue.record("expected a refreshed entry, got \(outcome)")
            return
        }
        #expect(entry.value as? String == "body")
        #expect(entry.storedAt == clock.now())
        #expect(entry.metadata.validators.etag == "\"v2\"")
        #expect(store.lookup("k", in: alice).isFresh)
        clock.advance(seconds: 60)
        #expect(store.lookup("k", in: alice).isStale)
    }

    @Test("a refresh can change the timeout")
    func refreshChangesTimeout() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("body", "k", in: alice, CacheEntryMetadata(timeout: .seconds(10)))

        store.refresh(key: "k", scope: alice, timeout: .never)
        clock.advance(seconds: 1_000)

        #expect(store.lookup("k", in: alice).isFresh)
        #expect(store.peek("k", in: alice).entry?.metadata.timeout == .never)
    }

    @Test("refreshing a key that is not stored creates nothing")
    func refreshMissing() throws {
        let store = try makeStore()

        guard case .notFound = store.refresh(key: "k", scope: alice) else {
            Issue.record("expected notFound")
            return
        }
        store.put("v", "other", in: alice)
        guard case .notFound = store.refresh(key: "k", scope: alice) else {
            Issue.record("expected notFound")
            return
        }
        #expect(store.peek("k", in: alice).isMiss)
    }

    @Test("a refresh with an invalid timeout is refused and the entry kept as it was")
    func refreshInvalidTimeout() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(5)))

        let outcome = store.refresh(key: "k", scope: alice, timeout: .seconds(-3))

        guard case .rejectedInvalid(.invalidTimeout) = outcome else {
            Issue.record("expected an invalid-timeout refusal")
            return
        }
        #expect(store.peek("k", in: alice).entry?.metadata.timeout == .seconds(5))
    }
}
