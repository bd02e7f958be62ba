import CacheCore
import GraphQLLanguage
import Synchronization

/// Answers the upstream declared `PUBLIC`, kept once for every session of the store, by exactly what was asked
/// (upstream URL, configured headers, document hash, canonical variables, and the values sent for every header the
/// upstream's `Vary` names): the one place data leaves a session, and only when the client opts in
/// (``GraphQLClient/Configuration/sharesPublicResponses``).
///
/// Only answers that ``UpstreamCachePolicy/isShareable(rootResponseKeys:)`` accepts get here: no `PRIVATE` part,
/// no private or caller-dependent header, no malformed hint, a positive `maxAge` covering every root field. They
/// are kept whole (not normalized: answers never mix here) until their `maxAge` ends. Bounded by count and bytes,
/// charged to the store's memory budget (and given back to it first when it reclaims); the oldest go first.
///
/// An answer with `Vary` is kept under its variant (`Key/vary`: each named header with the value the session
/// sent), and the names are remembered for the query (``varyNames(for:)``), so a later session's lookup forms the
/// variant of what it sends. The names are looked up only once some answer with `Vary` was kept.
final class PublicResponseCache: Sendable {
    struct Key: Hashable, Sendable {
        let url: String
        /// The client's configured headers (never the session's credentials), canonical.
        let headers: String
        let documentHash: String
        let variables: String
        /// For an answer with `Vary`: each header it names with the value the session sent, in name order; empty
        /// otherwise (the query's key, under which the names are kept).
        var vary = ""
    }

    struct Entry: Sendable {
        let data: GraphQLJSONObject
        let upstream: UpstreamCachePolicy
        let storedAt: CacheInstant
        let expiresAt: CacheInstant
        let bytes: Int
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The `Vary` names of the answer last kept for a query (by its key without variant).
        var varyNames: [Key: [String]] = [:]
        var bytes = 0
    }

    /// Entries kept at most. 1,000.
    static let maximumEntries = 1_000
    /// Bytes (as estimated) kept at most; a larger answer is not kept. 16 MiB.
    static let maximumBytes = 16 << 20

    private let state = Mutex(State())
    private let budget: MemoryBudget?
    /// Set once an answer with `Vary` was kept: until then a lookup skips looking for names.
    private let hasVaryingEntries = Atomic<Bool>(false)
    private let hitCount = Atomic<Int>(0)

    init(budget: MemoryBudget?) {
        self.budget = budget
    }

    /// The `Vary` names of the answer kept for `key` (a key without variant), nil when it had none (or nothing
    /// with `Vary` was ever kept).
    func varyNames(for key: Key) -> [String]? {
        guard hasVaryingEntries.load(ordering: .relaxed) else {
            return nil
        }
        return state.withLock { $0.varyNames[key] }
    }

    /// The entry for `key` if it is still within its `maxAge` at `now`.
    func entry(_ key: Key, at now: CacheInstant) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[key] else {
                return nil
            }
            return now < entry.expiresAt ? entry : nil
        }
    }

    /// Counts an entry served to a session.
    func countHit() {
        hitCount.add(1, ordering: .relaxed)
    }

    /// Entries served to a session since the store was made.
    var hits: Int {
        hitCount.load(ordering: .relaxed)
    }

    /// Keeps a shareable answer for `maxAge` seconds from `now`; `varyNames` are the headers its `Vary` names (its
    /// key then carries their values), empty when it has none.
    func store(
        _ data: GraphQLJSONObject, upstream: UpstreamCachePolicy, maxAge: Double, for key: Key,
        varyNames: [String] = [], at now: CacheInstant
    ) {
        let bytes =
            RecordSizing.jsonBytes(.object(data)) + key.variables.utf8.count + key.url.utf8.count
            + key.vary.utf8.count + 256
        guard bytes <= Self.maximumBytes else {
            return
        }
        if !varyNames.isEmpty {
            hasVaryingEntries.store(true, ordering: .relaxed)
        }
        let entry = Entry(
            data: data, upstream: upstream, storedAt: now,
            expiresAt: now.advanced(by: OutsideValue.clampedDuration(seconds: maxAge)), bytes: bytes)
        let released = state.withLock { state -> Int in
            var base = key
            base.vary = ""
            state.varyNames[base] = varyNames.isEmpty ? nil : varyNames
            var released = state.entries.updateValue(entry, forKey: key)?.bytes ?? 0
            state.bytes += bytes - released
            if state.entries.count > Self.maximumEntries || state.bytes > Self.maximumBytes {
                released += Self.trim(&state, now: now)
            }
            return released
        }
        if let budget {
            budget.release(released)
            budget.chargeAndReclaim(bytes)
        }
    }

    /// Gives back about `bytes` to the memory budget: the expired entries first, then the oldest. Returns the bytes
    /// freed (already released from the budget).
    func reclaim(bytes wanted: Int, now: CacheInstant) -> Int {
        let freed = state.withLock { state -> Int in
            var freed = 0
            for (key, entry) in state.entries where entry.expiresAt <= now {
                state.entries[key] = nil
                freed += entry.bytes
            }
            if freed < wanted {
                for (key, entry) in state.entries.sorted(by: { $0.value.storedAt < $1.value.storedAt }) {
                    guard freed < wanted else {
                        break
                    }
                    state.entries[key] = nil
                    freed += entry.bytes
                }
            }
            state.bytes -= freed
            Self.forgetUnusedNames(&state)
            return freed
        }
        budget?.release(freed)
        return freed
    }

    /// Drops every entry (the store's deinit, a clear of the shared scope, or an operator's clear); returns how
    /// many there were.
    @discardableResult
    func removeAll() -> Int {
        let (count, bytes) = state.withLock { state in
            defer { state = State() }
            return (state.entries.count, state.bytes)
        }
        budget?.release(bytes)
        return count
    }

    /// How many entries are kept now (expired ones included until trimmed).
    var count: Int {
        state.withLock { $0.entries.count }
    }

    /// Drops the expired entries, then the oldest until an eighth below the limits; returns the bytes freed.
    private static func trim(_ state: inout State, now: CacheInstant) -> Int {
        var freed = 0
        for (key, entry) in state.entries where entry.expiresAt <= now {
            state.entries[key] = nil
            freed += entry.bytes
        }
        state.bytes -= freed
        defer { forgetUnusedNames(&state) }
        let entryTarget = maximumEntries - maximumEntries / 8
        let byteTarget = maximumBytes - maximumBytes / 8
        guard state.entries.count > entryTarget || state.bytes > byteTarget else {
            return freed
        }
        for (key, entry) in state.entries.sorted(by: { $0.value.storedAt < $1.value.storedAt }) {
            guard state.entries.count > entryTarget || state.bytes > byteTarget else {
                break
            }
            state.entries[key] = nil
            state.bytes -= entry.bytes
            freed += entry.bytes
        }
        return freed
    }

    /// Keeps the `Vary` names only of queries that still have an entry, so they stay bounded by the entries.
    private static func forgetUnusedNames(_ state: inout State) {
        guard !state.varyNames.isEmpty else {
            return
        }
        var kept: Set<Key> = []
        for key in state.entries.keys where !key.vary.isEmpty {
            var base = key
            base.vary = ""
            kept.insert(base)
        }
        state.varyNames = state.varyNames.filter { kept.contains($0.key) }
    }
}
