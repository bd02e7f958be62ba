import Foundation
import Synchronization

/// What a read of the second level left for the rest of an upstream read: the generation to write the answer back
/// with, and the stored entry a 304 would confirm.
@usableFromInline
struct SecondLevelVisit: Sendable {
    /// The generation the read returned; nil when nothing was read or the store was unavailable (nothing written).
    @usableFromInline var generation: SecondLevelGeneration?
    /// The second-level entry whose validators the conditional request carries: on a 304 it is written back
    /// freshened (memory holds decoded values, not bytes, so only such an entry can be rewritten).
    @usableFromInline var revalidating: RESTSecondLevelEntry?
    /// The timeout the entry had before it was put in memory stale: a 304 without its own lifetime restores it.
    @usableFromInline var restoredTimeout: Timeout?

    @inlinable
    init() {}
}

/// What the upstream part of a flight goes on from: the second level's visit and the entry to revalidate.
@usableFromInline
struct UpstreamCarry<Value: Sendable>: Sendable {
    @usableFromInline var visit: SecondLevelVisit
    @usableFromInline var stale: CachedValue<Value>?

    @inlinable
    init(visit: SecondLevelVisit, stale: CachedValue<Value>?) {
        self.visit = visit
        self.stale = stale
    }
}

/// The outcome of asking the second level before the upstream.
@usableFromInline
enum SecondLevelOutcome<Value: Sendable>: Sendable {
    /// A fresh entry, now in memory: the answer.
    case served(DataWithSource<Value>)
    /// Go upstream, revalidating `stale` when it is set.
    case upstream(SecondLevelVisit, stale: CachedValue<Value>?)
}

extension APIService {
    /// L1 missed (or held only a stale entry): ask the second level. A fresh entry goes into memory exactly as the
    /// network answer did (same metadata, the remaining lifetime computed on this replica's wall clock) and is the
    /// answer; a stale one with validators becomes the entry the conditional request revalidates.
    @inlinable
    func consultSecondLevel<T: RequestType>(
        _ level: any RESTSecondLevel,
        _ request: T,
        _ placement: RequestPlan.CachePlacement,
        generation: CacheGeneration,
        stale: CachedValue<T.Response>?,
        refreshingLateAfter lateShare: Double? = nil
    ) async -> SecondLevelOutcome<T.Response> {
        var visit = SecondLevelVisit()
        // An answer that varies on request headers is kept in memory only (see `secondLevelEntry`).
        if shared.hasVaryingEntries.load(ordering: .relaxed),
            case .fresh(let entry) = cache.peek(placement.key, in: placement.scope), entry.value is VaryDescriptor
        {
            return .upstream(visit, stale: stale)
        }
        let entry: RESTSecondLevelEntry
        switch await readSecondLevel(level, placement) {
        case .unavailable:
            return .upstream(visit, stale: stale)
        case .miss(let readGeneration):
            visit.generation = readGeneration
            return .upstream(visit, stale: stale)
        case .hit(let found, let readGeneration):
            visit.generation = readGeneration
            entry = found
        }
        let now = clock.wallClockNow()
        guard (200..<300).contains(entry.status), entry.isPlausible(at: now),
            case .success(let value) = decodeBody(entry.body, as: request)
        else {
            level.recordUnusable(key: placement.key, in: placement.scope)
            return .upstream(visit, stale: stale)
        }
        if entry.isFresh(at: now) {
            // An eager refresh asks the upstream unless another replica already refreshed the entry.
            if let lateShare, entry.hasLived(lateShare, at: now) {
                // A 304 then rewrites the entry freshened, for the fleet, as for any revalidation.
                if let stale, !entry.metadata.validators.isEmpty,
                    stale.entry.metadata.validators == entry.metadata.validators
                {
                    visit.revalidating = entry
                }
                return .upstream(visit, stale: stale)
            }
            var metadata = entry.metadata
            let remaining = entry.freshUntil.map { OutsideValue.clampedSeconds(from: now, to: $0) }
            metadata.timeout = remaining.map { .seconds($0) } ?? .never
            metadata.keepStale(for: request.cachePolicy)
            // Closed while the second level was read: the answer is delivered, not put in memory.
            if !isClosed {
                cache.store(
                    value, byteCost: entry.body.count, key: placement.key, in: placement.scope, metadata: metadata,
                    ifGeneration: generation)
            }
            let age = OutsideValue.clampedDuration(seconds: now.timeIntervalSince(entry.storedAt))
            reportServed(.l2, .hit)
            return .served(DataWithSource(data: value, source: .cache, age: age))
        }
        let validators = entry.metadata.validators
        guard configuration.honorsHTTPCaching, !validators.isEmpty, !isClosed else {
            return .upstream(visit, stale: stale)
        }
        if let stale {
            // Memory's own stale entry is revalidated; a 304 confirms the stored body too when it is the same one.
            if stale.entry.metadata.validators == validators { visit.revalidating = entry }
            return .upstream(visit, stale: stale)
        }
        // Put it in memory stale at once (timeout zero), so the conditional request and the 304 take the usual path.
        var metadata = entry.metadata
        metadata.timeout = .seconds(0)
        metadata.keepStale(for: request.cachePolicy)
        let outcome = cache.store(
            value, byteCost: entry.body.count, key: placement.key, in: placement.scope, metadata: metadata,
            ifGeneration: generation)
        guard outcome.isStored, let stored = cache.peek(placement.key, in: placement.scope).entry,
            let typed = stored.value as? T.Response
        else { return .upstream(visit, stale: nil) }
        visit.revalidating = entry
        visit.restoredTimeout = entry.metadata.timeout
        return .upstream(visit, stale: CachedValue(value: typed, entry: stored, key: placement.key))
    }

    /// A cache-only read that missed in memory: the second level is a cache too, so a fresh entry there answers it
    /// (no upstream call either way).
    @usableFromInline
    func secondLevelAnswer<T: RequestType>(
        _ request: T, _ placement: RequestPlan.CachePlacement
    ) async -> DataWithSource<T.Response>? {
        guard let secondLevel else { return nil }
        let generation = cache.generation(of: placement.scope)
        let outcome = await consultSecondLevel(secondLevel, request, placement, generation: generation, stale: nil)
        if case .served(let answer) = outcome { return answer }
        return nil
    }

    /// The second-level form of an answer just stored in memory with `metadata` (timeout not yet resolved).
    func secondLevelEntry(status: Int, body: Data, metadata: CacheEntryMetadata) -> RESTSecondLevelEntry {
        var metadata = metadata
        metadata.timeout = metadata.timeout.resolved(default: cache.defaultTimeout)
        let storedAt = clock.wallClockNow()
        var expiresAt: Date?
        if case .seconds(let seconds) = metadata.timeout {
            expiresAt = OutsideValue.date(storedAt, advancedBy: seconds)
        }
        return RESTSecondLevelEntry(
            status: status, body: body, storedAt: storedAt, expiresAt: expiresAt, metadata: metadata)
    }

    /// After a 304: writes the revalidated second-level entry back with the freshened metadata.
    func rewriteSecondLevel(
        after refreshed: CacheEntry?, visit: SecondLevelVisit, request placement: RequestPlan.CachePlacement
    ) {
        guard let level = secondLevel, let generation = visit.generation, let original = visit.revalidating,
            let refreshed
        else { return }
        let entry = secondLevelEntry(status: original.status, body: original.body, metadata: refreshed.metadata)
        level.write(entry, key: placement.key, in: placement.scope, generation: generation)
    }
}
