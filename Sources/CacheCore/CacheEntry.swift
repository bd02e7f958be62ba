import Foundation

/// A stored value with everything a caller needs to decide how to use it (fresh, stale, revalidate).
///
/// The value is kept as stored — a decoded Swift value, not bytes — so a typed hit is a cast, not a decode.
public struct CacheEntry: Sendable {
    /// The stored value; cast it back to the type that was inserted.
    public var value: any Sendable
    /// The metadata given at insert, with `timeout` resolved (never `useDefault`).
    public var metadata: CacheEntryMetadata
    /// When the value was stored (or last revalidated), on the store's monotonic clock.
    public var storedAt: CacheInstant
    /// The wall-clock time of `storedAt`, for export and display.
    public var storedAtDate: Date
    /// The payload cost the caller declared at insert.
    public var byteCost: Int
    /// What the entry counts against the scope and memory budget: `byteCost`, the key's UTF-8 length, the
    /// store's `entryOverhead` and an estimate of what its metadata holds on the heap.
    public var chargedBytes: Int
    /// When the entry stops being fresh; `nil` for entries that never expire.
    public var expiresAt: CacheInstant?

    public init(
        value: any Sendable,
        metadata: CacheEntryMetadata,
        storedAt: CacheInstant,
        storedAtDate: Date,
        byteCost: Int,
        chargedBytes: Int,
        expiresAt: CacheInstant?
    ) {
        self.value = value
        self.metadata = metadata
        self.storedAt = storedAt
        self.storedAtDate = storedAtDate
        self.byteCost = byteCost
        self.chargedBytes = chargedBytes
        self.expiresAt = expiresAt
    }

    /// Fresh until `expiresAt` (exclusive): an entry with a 300 s timeout is stale from second 300 on.
    public func isFresh(at instant: CacheInstant) -> Bool {
        guard let expiresAt else {
            return true
        }
        return instant < expiresAt
    }

    /// Until when the entry is kept for the policies that may serve it stale: its expiry plus the metadata's
    /// ``CacheEntryMetadata/staleRetention`` (the expiry itself when there is none); `nil` for entries that never
    /// expire. ``CacheStore/purgeExpired(olderThan:)`` removes the entry once this instant is `grace` behind.
    /// Computed, never stored: a hit does not pay for it.
    public var staleHorizon: CacheInstant? {
        guard let expiresAt else {
            return nil
        }
        let retention = metadata.staleRetentionNanoseconds
        return retention == 0 ? expiresAt : expiresAt.advanced(byNanoseconds: retention)
    }

    /// How long ago the entry was stored or revalidated.
    public func age(at instant: CacheInstant) -> Duration {
        instant.duration(since: storedAt)
    }

    /// How long the entry has been stale, `nil` while it is fresh; used for stale-while-revalidate grace periods.
    public func staleness(at instant: CacheInstant) -> Duration? {
        guard let expiresAt, instant >= expiresAt else {
            return nil
        }
        return instant.duration(since: expiresAt)
    }
}

/// The answer to a lookup.
///
/// Stale entries are returned rather than hidden because every fallback the seeds describe needs them:
/// stale-while-revalidate serves them at once, network-first serves them on error, and ETag revalidation needs
/// their validators.
public enum CacheLookup: Sendable {
    case fresh(CacheEntry)
    case stale(CacheEntry)
    case miss

    /// The entry whether fresh or stale.
    public var entry: CacheEntry? {
        switch self {
        case .fresh(let entry), .stale(let entry):
            return entry
        case .miss:
            return nil
        }
    }

    /// The entry only if it is fresh: what a plain cache-first read serves.
    public var freshEntry: CacheEntry? {
        if case .fresh(let entry) = self {
            return entry
        }
        return nil
    }
}
