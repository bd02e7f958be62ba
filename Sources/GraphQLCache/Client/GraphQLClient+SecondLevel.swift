import CacheCore
import Foundation
import GraphQLLanguage

/// The outcome of asking the second level before the upstream.
enum GraphQLSecondLevelOutcome: Sendable {
    /// A fresh result, merged into the store: the answer.
    case served(NetworkAnswer)
    /// Go upstream; write the answer back with this generation (nil: the read had no answer, write nothing).
    case upstream(SecondLevelGeneration?)
}

extension GraphQLClient {
    /// A cache-first query missed in the store: ask the second level. A fresh result is merged into the store exactly
    /// as the network's answer would be (normalization, field write times, the generation and mutation rules), and
    /// is the answer (a cache hit).
    func consultSecondLevel(
        _ level: any GraphQLSecondLevel, _ request: PreparedRequest, generation: CacheGeneration,
        mutationsSeen: UInt64
    ) async -> GraphQLSecondLevelOutcome {
        let key = secondLevelKey(request)
        let entry: GraphQLSecondLevelEntry
        let readGeneration: SecondLevelGeneration
        switch await readSecondLevel(level, key) {
        case .unavailable: return .upstream(nil)
        case .miss(let found): return .upstream(found)
        case .hit(let found, let foundGeneration):
            entry = found
            readGeneration = foundGeneration
        }
        let now = store.clock.wallClockNow()
        guard entry.isPlausible(at: now) else {
            level.recordUnusable(key, in: scope)
            return .upstream(readGeneration)
        }
        guard entry.isFresh(at: now, lifetime: secondLevelLifetime(request)) else { return .upstream(readGeneration) }
        guard let data = try? GraphQLJSON(parsing: entry.data).objectValue else {
            level.recordUnusable(key, in: scope)
            return .upstream(readGeneration)
        }
        let stored: Bool
        do {
            stored = try merge(
                data, of: request, generation: generation, mutationsSeen: mutationsSeen,
                upstream: Self.secondLevelPolicy(entry), writtenAt: writtenAt(of: entry, now: now))
        } catch {
            // The data does not fit the operation (another schema version): not usable.
            level.recordUnusable(key, in: scope)
            return .upstream(readGeneration)
        }
        reportServed(.l2, .hit)
        return .served(NetworkAnswer(data: data, errors: [], extensions: nil, wasStored: stored, fromSecondLevel: true))
    }

    /// What a second-level entry still says about its lifetime: the one the replica that stored it gave it (its
    /// upstream's `maxAge` within that replica's rules), as a bound on every field merged from it; no statement when
    /// it never expires.
    static func secondLevelPolicy(_ entry: GraphQLSecondLevelEntry) -> UpstreamCachePolicy {
        guard let expiresAt = entry.expiresAt else {
            return .none
        }
        return .secondLevel(lifetime: expiresAt.timeIntervalSince(entry.storedAt))
    }

    /// When an entry was stored, on this store's monotonic clock: its age on the wall clock (none when the other
    /// replica's clock runs ahead) before now, so the merged fields are as old here as the entry is.
    func writtenAt(of entry: GraphQLSecondLevelEntry, now: Date) -> CacheInstant {
        let age = OutsideValue.clampedDuration(seconds: now.timeIntervalSince(entry.storedAt))
        return store.clock.now().advanced(by: .zero - age)
    }

    /// The second-level identity of a query's result.
    func secondLevelKey(_ request: PreparedRequest) -> GraphQLSecondLevelKey {
        GraphQLSecondLevelKey(
            document: request.document.text, variables: request.queryKey.canonicalVariables,
            operationName: request.document.keyName)
    }

    /// A network answer just merged, as the second level keeps it: fresh for the shortest lifetime any of this
    /// client's freshness rules gives (the query's, the default, every type and field rule), so another replica
    /// never takes a field as fresh past its own lifetime on this one.
    /// An upstream `maxAge` shortens it further (the merged copy another replica makes carries no hints).
    func secondLevelEntry(
        _ data: GraphQLJSONObject, of request: PreparedRequest, upstreamMaxAge: Double? = nil
    ) -> GraphQLSecondLevelEntry {
        let storedAt = store.clock.wallClockNow()
        let lifetimes = [secondLevelLifetime(request), upstreamMaxAge].compactMap { $0 }
        return GraphQLSecondLevelEntry(
            data: GraphQLJSON.object(data).jsonBytes(), storedAt: storedAt,
            expiresAt: lifetimes.min().map { OutsideValue.date(storedAt, advancedBy: $0) })
    }

    /// The shortest lifetime, in seconds, any of this client's freshness rules gives `request`'s result (the
    /// query's, the default, every type and field rule); nil when timeouts are off or no rule expires anything.
    func secondLevelLifetime(_ request: PreparedRequest) -> Double? {
        shared.rules.withLock { rules -> Double? in
            let config = rules.config
            guard config.isTimeoutEnabled else { return nil }
            let timeouts =
                [request.requestedTimeout, .useDefault] + Array(config.typeTimeouts.values)
                + Array(config.fieldTimeouts.values)
            return timeouts.compactMap { $0.timeInterval(default: config.defaultTimeout) }.min()
        }
    }
}
