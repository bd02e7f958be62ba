/// What the store needs to know about an entry besides its value: how long it is fresh and what it belongs to.
///
/// The sets feed the store's secondary indexes, so clearing "everything of account 123" or "the balances domain"
/// costs the entries removed rather than a scan of the scope. Every field has a default, so a plain
/// `CacheEntryMetadata()` is an entry with the store's default timeout that belongs to nothing in particular.
public struct CacheEntryMetadata: Hashable, Sendable {
    /// Freshness lifetime; `useDefault` is resolved by the store when the entry is stored.
    public var timeout: Timeout
    /// ``staleRetention`` in whole seconds. Declared right after `timeout` so it sits in the padding after the
    /// timeout's tag byte: the metadata (and every stored entry) is no larger for it.
    private var staleRetentionSeconds: UInt32
    /// Feature domains (`CacheDomain` names higher up, e.g. "balances"), cleared together by `clear(domain:)`.
    public var domains: Set<String>
    /// Account identifiers and tokens the entry concerns; both forms go here so a clear by either finds it.
    public var accounts: Set<String>
    /// Held at session level: survives every granular clear and is removed only by a whole-scope clear, by
    /// `clearUplifted(in:)`, or by a clear that passes `includeUplifted: true` (the seed's `isUpliftedCache`).
    public var isUplifted: Bool
    /// HTTP validators of the stored body, for a conditional request that may come back 304.
    public var validators: CacheValidators
    /// Normalized records the value was built from (e.g. "Account:123"), cleared together by `clear(entityKey:)`.
    public var entityKeys: Set<String>
    /// Free-form labels for callers' own bookkeeping (operation names, schema versions); not indexed.
    public var tags: Set<String>

    public init(
        timeout: Timeout = .useDefault,
        domains: Set<String> = [],
        accounts: Set<String> = [],
        isUplifted: Bool = false,
        validators: CacheValidators = CacheValidators(),
        entityKeys: Set<String> = [],
        tags: Set<String> = [],
        staleRetention: Duration = .zero
    ) {
        self.timeout = timeout
        self.staleRetentionSeconds = Self.wholeSeconds(staleRetention)
        self.domains = domains
        self.accounts = accounts
        self.isUplifted = isUplifted
        self.validators = validators
        self.entityKeys = entityKeys
        self.tags = tags
    }
}

extension CacheEntryMetadata {
    /// How long past its expiry the entry is kept for a policy that may still serve it stale (stale-if-error's
    /// maximum staleness, stale-while-revalidate's grace, a fail-safe window): the purge removes it only once
    /// its ``CacheEntry/staleHorizon`` (expiry plus this) has passed, instead of at expiry. Zero, the default,
    /// keeps an entry as before: until its expiry plus the purge's grace. Reads call the entry stale from its
    /// expiry on either way; the entry stays charged to the budget, and the memory reclaimer takes expired entries
    /// before fresh ones.
    ///
    /// Kept in whole seconds, rounded up (a window is never cut short), at most `UInt32.max` seconds (about 136
    /// years); negative durations are zero.
    public var staleRetention: Duration {
        get { .seconds(Int64(staleRetentionSeconds)) }
        set { staleRetentionSeconds = Self.wholeSeconds(newValue) }
    }

    /// ``staleRetention`` in nanoseconds, for the instant arithmetic of the purge.
    var staleRetentionNanoseconds: Int64 {
        Int64(staleRetentionSeconds) * 1_000_000_000
    }

    /// `duration` in whole seconds, rounded up and clamped to what the field holds.
    private static func wholeSeconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let rounded = attoseconds > 0 ? seconds.addingReportingOverflow(1).partialValue : seconds
        return rounded < 0 ? .max : UInt32(clamping: rounded)
    }
}

/// The HTTP validators that let an expired entry be revalidated with `If-None-Match` / `If-Modified-Since`.
public struct CacheValidators: Hashable, Sendable {
    /// The `ETag` response header, verbatim (including any `W/` prefix and quotes).
    public var etag: String?
    /// The `Last-Modified` response header, verbatim.
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Whether a conditional request is possible at all.
    public var isEmpty: Bool {
        etag == nil && lastModified == nil
    }
}

extension CacheEntryMetadata {
    /// What the metadata holds on the heap beyond the entry's own slot, estimated: each non-empty set's storage
    /// (a header and a slot per element, at a set's usual spare capacity) and the text of strings too long to be
    /// stored inline. The store charges it with the entry, so entries that name many domains, accounts or
    /// entities cost the budget what they cost the process.
    var estimatedHeapBytes: Int {
        Self.setBytes(domains) + Self.setBytes(accounts) + Self.setBytes(entityKeys) + Self.setBytes(tags)
            + Self.stringBytes(validators.etag) + Self.stringBytes(validators.lastModified)
    }

    private static func setBytes(_ set: Set<String>) -> Int {
        guard !set.isEmpty else { return 0 }
        return set.reduce(64) { $0 + 24 + stringBytes($1) }
    }

    private static func stringBytes(_ string: String?) -> Int {
        string.map(MemoryBudget.heapBytes(of:)) ?? 0
    }
}
