import Testing

@testable import CacheCore

@Suite("Configuration and errors")
struct ConfigurationTests {
    @Test("the documented defaults")
    func defaults() {
        let configuration = CacheStore.Configuration()

        #expect(configuration.maxEntriesPerScope == 10_000)
        #expect(configuration.maxBytesPerScope == 64 * 1024 * 1024)
        #expect(configuration.defaultTimeout == .seconds(300))
        #expect(configuration.entryOverhead == 352)
        #expect(configuration.stripeCount == 64)
    }

    @Test("the default per-entry overhead covers at least the slab node, a hash-table slot and an expiry item")
    func overheadIsHonest() {
        let node = MemoryLayout<StoredEntry>.stride + 2 * MemoryLayout<Int32>.stride
        let slot = MemoryLayout<String>.stride + MemoryLayout<LRUList<StoredEntry>.Handle>.stride
        let expiry = MemoryLayout<ExpiryItem>.stride

        #expect(CacheStore.Configuration().entryOverhead >= node + slot + expiry)
    }

    @Test(
        "out-of-range values are refused with an invalidConfiguration error naming the field",
        arguments: [
            ("maxEntriesPerScope", CacheStore.Configuration(maxEntriesPerScope: 0)),
            ("maxBytesPerScope", CacheStore.Configuration(maxBytesPerScope: -1)),
            ("entryOverhead", CacheStore.Configuration(entryOverhead: -8)),
            ("stripeCount", CacheStore.Configuration(stripeCount: 0)),
        ])
    func invalidConfiguration(field: String, configuration: CacheStore.Configuration) {
        do {
            _ = try CacheStore(configuration: configuration)
            Issue.record("expected \(field) to be refused")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(field))
        }
    }

    @Test(
        "a default timeout that is useDefault or negative is refused with invalidTimeout",
        arguments: [
            Timeout.useDefault, .seconds(-1), .seconds(.nan),
        ])
    func invalidDefaultTimeout(timeout: Timeout) {
        do {
            _ = try CacheStore(configuration: CacheStore.Configuration(defaultTimeout: timeout))
            Issue.record("expected \(timeout) to be refused")
        } catch {
            #expect(error.code == .invalidTimeout)
        }
    }

    @Test("an error prints its code and message but not its underlying error")
    func errorDescription() {
        struct Leaky: Error, Sendable, CustomStringConvertible {
            var description: String { "Bearer abc.secret" }
        }
        let error = CacheCoreError(code: .invalidConfiguration, message: "bad limit", underlying: Leaky())

        #expect(String(describing: error) == "CacheCoreError.invalidConfiguration: bad limit")
        #expect(error.underlying is Leaky)
        #expect(CacheCoreError.Code.invalidTimeout != .invalidByteCost)
    }
}
