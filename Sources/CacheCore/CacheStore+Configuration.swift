import Synchronization

extension CacheStore {
    /// The per-scope limits in force: the configuration's until changed with
    /// ``updateLimits(maxEntriesPerScope:maxBytesPerScope:)``.
    public struct Limits: Hashable, Sendable {
        /// Entries one scope may hold before its least recently used entry is evicted.
        public var maxEntriesPerScope: Int
        /// Bytes (as charged) one scope may hold before LRU eviction.
        public var maxBytesPerScope: Int

        public init(maxEntriesPerScope: Int, maxBytesPerScope: Int) {
            self.maxEntriesPerScope = maxEntriesPerScope
            self.maxBytesPerScope = maxBytesPerScope
        }
    }

    /// The per-scope limits applied to the next insert.
    public var currentLimits: Limits {
        let limits = liveLimits.current
        return Limits(maxEntriesPerScope: limits.maxEntries, maxBytesPerScope: limits.maxBytes)
    }

    /// Changes the per-scope limits at run time (a settings reload), for every later insert.
    ///
    /// Scopes above the new limits are not trimmed at once: each gives up its least recently used entries on its
    /// next insert, so lowering a limit costs nothing up front. An entry larger than the new byte limit is refused
    /// from now on. ``configuration`` keeps the values the store was created with.
    /// - Throws: `invalidConfiguration` when a limit is not positive; the limits are then unchanged.
    public func updateLimits(maxEntriesPerScope: Int, maxBytesPerScope: Int) throws(CacheCoreError) {
        var candidate = configuration
        candidate.maxEntriesPerScope = maxEntriesPerScope
        candidate.maxBytesPerScope = maxBytesPerScope
        try candidate.validate()
        liveLimits.update(candidate.limits)
    }

    /// Limits and defaults of a store. Every field has a default suited to a BFF with many small sessions.
    public struct Configuration: Hashable, Sendable {
        /// Entries one scope may hold before its least recently used entry is evicted. Default 10_000.
        public var maxEntriesPerScope: Int
        /// Bytes (as charged, see `entryOverhead`) one scope may hold before LRU eviction. Default 64 MiB.
        public var maxBytesPerScope: Int
        /// What `Timeout.useDefault` means for this store. Default 300 seconds, the seeds' global default.
        public var defaultTimeout: Timeout
        /// Bytes charged per entry on top of the caller's `byteCost` and the key's UTF-8 length. Default 352.
        ///
        /// This is the store's own memory per entry, so that a scope of many tiny values is not reported as
        /// nearly free: the slab node (200 bytes on 64-bit: value existential, metadata, instants, LRU links),
        /// the key's hash-table slot (~30 bytes at 75% load), the key-segment index (~60-90 bytes: set
        /// memberships and segment-prefix strings) and the expiry index (32 bytes per item, up to twice as many
        /// items as entries before it is rebuilt). What the entry's metadata holds beyond that (its non-empty
        /// sets of domains, accounts, entity keys and tags, and long validator strings) is estimated and charged
        /// on top, per entry.
        public var entryOverhead: Int
        /// How many locks share the scopes; sessions hashing to different stripes never contend. Default 64.
        public var stripeCount: Int

        public init(
            maxEntriesPerScope: Int = 10_000,
            maxBytesPerScope: Int = 64 * 1024 * 1024,
            defaultTimeout: Timeout = .seconds(300),
            entryOverhead: Int = 352,
            stripeCount: Int = 64
        ) {
            self.maxEntriesPerScope = maxEntriesPerScope
            self.maxBytesPerScope = maxBytesPerScope
            self.defaultTimeout = defaultTimeout
            self.entryOverhead = entryOverhead
            self.stripeCount = stripeCount
        }

        /// Throws a `.invalidConfiguration` or `.invalidTimeout` error naming the first field out of range.
        public func validate() throws(CacheCoreError) {
            try Self.require(maxEntriesPerScope > 0, "maxEntriesPerScope must be positive, got \(maxEntriesPerScope)")
            try Self.require(maxBytesPerScope > 0, "maxBytesPerScope must be positive, got \(maxBytesPerScope)")
            try Self.require(entryOverhead >= 0, "entryOverhead must not be negative, got \(entryOverhead)")
            try Self.require(stripeCount > 0, "stripeCount must be positive, got \(stripeCount)")
            if case .useDefault = defaultTimeout {
                throw CacheCoreError(code: .invalidTimeout, message: "defaultTimeout cannot be .useDefault")
            }
            guard defaultTimeout.isValid else {
                throw CacheCoreError(
                    code: .invalidTimeout,
                    message: "defaultTimeout must be a finite, non-negative number of seconds or .never"
                )
            }
        }

        var limits: PartitionLimits {
            PartitionLimits(maxEntries: maxEntriesPerScope, maxBytes: maxBytesPerScope)
        }

        private static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(CacheCoreError) {
            guard condition else {
                throw CacheCoreError(code: .invalidConfiguration, message: "CacheStore.Configuration." + message())
            }
        }
    }
}

/// The per-scope limits of a store, changeable while inserts read them.
///
/// Two atomics rather than a lock: an insert reads each once. An insert racing an update may see one old and one
/// new value, which is harmless (each is a valid limit).
final class LiveScopeLimits: Sendable {
    private let maxEntries: Atomic<Int>
    private let maxBytes: Atomic<Int>

    init(_ limits: PartitionLimits) {
        maxEntries = Atomic(limits.maxEntries)
        maxBytes = Atomic(limits.maxBytes)
    }

    var current: PartitionLimits {
        PartitionLimits(maxEntries: maxEntries.load(ordering: .relaxed), maxBytes: maxBytes.load(ordering: .relaxed))
    }

    func update(_ limits: PartitionLimits) {
        maxEntries.store(limits.maxEntries, ordering: .relaxed)
        maxBytes.store(limits.maxBytes, ordering: .relaxed)
    }
}
