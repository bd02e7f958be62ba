import CacheCore
import GraphQLLanguage
import Synchronization

/// Answers the upstream declared `PUBLIC`, kept once for every session of the store, by exactly what was asked
/// (upstream URL, configured headers, document hash, canonical variables): the one place data leaves a session,
/// and only when the client opts in (``GraphQLClient/Configuration/sharesPublicResponses``).
///
/// Only answers that ``UpstreamCachePolicy/isShareable(rootResponseKeys:)`` accepts get here: no `PRIVATE` part,
/// no private or caller-dependent header, no malformed hint, a positive `maxAge` covering every root field. They
/// are kept whole (not normalized: answers never mix here) until their `maxAge` ends. Bounded by count and bytes,
/// charged to the store's memory budget; the oldest go first.
final class PublicResponseCache: Sendable {
    struct Key: Hashable, Sendable {
        let url: String
        /// The client's configured headers (never the session's credentials), canonical.
        let headers: String
        let documentHash: String
        let variables: String
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
        var bytes = 0
    }

    /// Entries kept at most. 1,000.
    static let maximumEntries = 1_000
    /// Bytes (as estimated) kept at most; a larger answer is not kept. 16 MiB.
    static let maximumBytes = 16 << 20

    private let state = Mutex(State())
    private let budget: MemoryBudget?

    init(budget: MemoryBudget?) {
        self.budget = budget
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

    /// Keeps a shareable answer for `maxAge` seconds from `now`.
    func store(
        _ data: GraphQLJSONObject, upstream: UpstreamCachePolicy, maxAge: Double, for key: Key, at now: CacheInstant
    ) {
        let bytes = RecordSizing.jsonBytes(.object(data)) + key.variables.utf8.count + key.url.utf8.count + 256
        guard bytes <= Self.maximumBytes else {
            return
        }
        let entry = Entry(
            data: data, upstream: upstream, storedAt: now,
            expiresAt: now.advanced(by: OutsideValue.clampedDuration(seconds: maxAge)), bytes: bytes)
        let released = state.withLock { state -> Int in
            var released = state.entries.updateValue(entry, forKey: key)?.bytes ?? 0
            state.bytes += bytes - released
            if state.entries.count > Self.maximumEntries || state.bytes > Self.maximumBytes {
                released += Self.trim(&state, now: now)
            }
            return released
        }
        if let budget {
            _ = budget.charge(bytes)
            budget.release(released)
        }
    }

    /// Drops every entry (the store's deinit, or an operator's clear); returns how many there were.
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
}
