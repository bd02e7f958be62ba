import GraphQLLanguage
import Synchronization

extension GraphQLNormalizedStore {
    /// The per-scope limits in force: the configuration's until changed with
    /// ``updateLimits(maxBytesPerScope:maxRecordsPerScope:)``.
    public struct Limits: Hashable, Sendable {
        /// Records one scope may hold before its least recently used records are evicted.
        public var maxRecordsPerScope: Int
        /// Bytes (as charged) one scope may hold before LRU eviction.
        public var maxBytesPerScope: Int

        /// Creates a limits value.
        public init(maxRecordsPerScope: Int, maxBytesPerScope: Int) {
            self.maxRecordsPerScope = maxRecordsPerScope
            self.maxBytesPerScope = maxBytesPerScope
        }
    }

    /// The per-scope limits applied to the next write.
    public var currentLimits: Limits {
        let (maxRecords, maxBytes) = liveLimits.current
        return Limits(maxRecordsPerScope: maxRecords, maxBytesPerScope: maxBytes)
    }

    /// Changes the per-scope byte limit (and, when given, the record limit) at run time, for every later write.
    ///
    /// Scopes above the new limits are not trimmed at once: each gives up its least recently used records on its
    /// next write. A response larger than the new limit is refused from now on. ``configuration`` keeps the
    /// values the store was created with.
    /// - Throws: `invalidConfiguration` when a limit is not positive; the limits are then unchanged.
    public func updateLimits(maxBytesPerScope: Int, maxRecordsPerScope: Int? = nil) throws(GraphQLCacheError) {
        var candidate = configuration
        candidate.maxBytesPerScope = maxBytesPerScope
        candidate.maxRecordsPerScope = maxRecordsPerScope ?? liveLimits.current.maxRecords
        try candidate.validate()
        liveLimits.update(maxRecords: candidate.maxRecordsPerScope, maxBytes: candidate.maxBytesPerScope)
    }

    /// Limits of a normalized store. Every field has a default suited to a BFF with many small sessions.
    public struct Configuration: Hashable, Sendable {
        /// Records one scope may hold before its least recently used records are evicted. Default 50,000.
        public var maxRecordsPerScope: Int
        /// Bytes (as charged, see the overheads) one scope may hold before LRU eviction. Default 64 MiB.
        public var maxBytesPerScope: Int
        /// Bytes charged per record on top of its key and fields. Default 232: the record object (~104 bytes),
        /// its field table's header (~64), its slot in the scope's record table (~40 at 75% load) and its item in
        /// the write-time index used by purges (24 bytes, up to twice as many items as records before a rebuild).
        public var recordOverhead: Int
        /// Bytes charged per field on top of its storage key and value. Default 72: one slot of the record's
        /// field table (key, value and write time, 48 bytes, at 75% load) and the table's metadata. Strings of
        /// up to 15 UTF-8 bytes live inline and cost nothing more; longer ones are charged their length plus 32.
        public var fieldOverhead: Int
        /// How many locks share the scopes' lookup; sessions hashing to different stripes never contend.
        /// Default 64. (Reads and writes of a scope's records use the scope's own reader-writer lock.)
        public var stripeCount: Int

        /// Creates limits; each parameter defaults to the value documented on its property.
        public init(
            maxRecordsPerScope: Int = 50_000,
            maxBytesPerScope: Int = 64 * 1024 * 1024,
            recordOverhead: Int = 232,
            fieldOverhead: Int = 72,
            stripeCount: Int = 64
        ) {
            self.maxRecordsPerScope = maxRecordsPerScope
            self.maxBytesPerScope = maxBytesPerScope
            self.recordOverhead = recordOverhead
            self.fieldOverhead = fieldOverhead
            self.stripeCount = stripeCount
        }

        /// Throws an `invalidConfiguration` error naming the first field out of range.
        public func validate() throws(GraphQLCacheError) {
            try Self.require(maxRecordsPerScope > 0, "maxRecordsPerScope must be positive, got \(maxRecordsPerScope)")
            try Self.require(maxBytesPerScope > 0, "maxBytesPerScope must be positive, got \(maxBytesPerScope)")
            try Self.require(recordOverhead >= 0, "recordOverhead must not be negative, got \(recordOverhead)")
            try Self.require(fieldOverhead >= 0, "fieldOverhead must not be negative, got \(fieldOverhead)")
            try Self.require(stripeCount > 0, "stripeCount must be positive, got \(stripeCount)")
        }

        /// Eviction for a per-scope limit goes this far below it, so that a scope at its limit does not sort its
        /// records on every write: 1/16 of the limit.
        func evictionTarget(_ limit: Int) -> Int {
            limit - limit / 16
        }

        var sizing: RecordSizing {
            RecordSizing(recordOverhead: recordOverhead, fieldOverhead: fieldOverhead)
        }

        private static func require(
            _ condition: Bool,
            _ message: @autoclosure () -> String
        ) throws(GraphQLCacheError) {
            guard condition else {
                throw GraphQLCacheError(
                    code: .invalidConfiguration,
                    message: "GraphQLNormalizedStore.Configuration." + message()
                )
            }
        }
    }
}

/// The per-scope limits of a normalized store, changeable while writes read them (one atomic load each).
final class LiveRecordLimits: Sendable {
    private let maxRecords: Atomic<Int>
    private let maxBytes: Atomic<Int>

    init(_ configuration: GraphQLNormalizedStore.Configuration) {
        maxRecords = Atomic(configuration.maxRecordsPerScope)
        maxBytes = Atomic(configuration.maxBytesPerScope)
    }

    var current: (maxRecords: Int, maxBytes: Int) {
        (maxRecords.load(ordering: .relaxed), maxBytes.load(ordering: .relaxed))
    }

    func update(maxRecords: Int, maxBytes: Int) {
        self.maxRecords.store(maxRecords, ordering: .relaxed)
        self.maxBytes.store(maxBytes, ordering: .relaxed)
    }
}
