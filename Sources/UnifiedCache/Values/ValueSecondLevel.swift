import CacheCore
import Foundation
import RESTCache

/// The second level as the value door sees it: the coded bytes in the sealed entry form REST answers use (a body,
/// stored-at and expiry times, the timeout, tags), under the value kind, so a sealed REST answer can never be opened
/// as a value or the other way round. Names are keyed hashes under the scope's namespace, as for REST and GraphQL.
struct ValueSecondLevel {
    let front: SecondLevelFront
    /// The scope's namespace: the shared one, or the session's (hashed once per session).
    let namespace: SecondLevelNamespace

    init(front: SecondLevelFront, scope: CacheScope, session: CacheSession?) {
        self.front = front
        self.namespace = session?.secondLevelNamespace(front) ?? front.namespace(of: scope)
    }

    enum Read<Value> {
        case unavailable
        /// Nothing usable: `undecodable` when a sealed value was there but the coder could not decode it.
        case miss(SecondLevelGeneration, undecodable: Bool)
        case hit(Value, RESTSecondLevelEntry)
    }

    func read<Value: Decodable>(_ type: Value.Type, key: String, coder: any ValueCoder) async -> Read<Value> {
        let name = front.names.key(.value, key, in: namespace)
        let dating = SecondLevelFront.Dating<RESTSecondLevelEntry>(
            storedAt: \.storedAt, carries: { Self.carries($0, $1, key: key) })
        switch await front.lookup(name, kind: .value, decode: SecondLevelEntryCodec.decode, dating: dating) {
        case .unavailable:
            return .unavailable
        case .miss(let generation):
            return .miss(generation, undecodable: false)
        case .hit(let entry, let generation):
            let now = front.wallClockNow()
            guard entry.isPlausible(at: now), entry.isFresh(at: now) else {
                return .miss(generation, undecodable: false)
            }
            guard let value = try? coder.decode(type, from: entry.body) else {
                front.recordUnusable()
                return .miss(generation, undecodable: true)
            }
            return .hit(value, entry)
        }
    }

    func write(
        _ data: Data, key: String, tags: Set<String>, timeout: Timeout, default defaultTimeout: Timeout,
        generation: SecondLevelGeneration
    ) {
        let resolved = timeout.resolved(default: defaultTimeout)
        let storedAt = front.wallClockNow()
        let expiresAt: Date? =
            switch resolved {
            case .seconds(let seconds): OutsideValue.date(storedAt, advancedBy: seconds)
            case .never, .useDefault: nil
            }
        let entry = RESTSecondLevelEntry(
            status: 200, body: data, storedAt: storedAt, expiresAt: expiresAt,
            metadata: CacheEntryMetadata(timeout: resolved, domains: tags, entityKeys: [key]))
        let name = front.names.key(.value, key, in: namespace)
        var labels: [SecondLevelNames.Label] = [.kind(.value), .valueKey(key)]
        labels += tags.sorted().map { .valueTag($0) }
        front.write(
            SecondLevelEntryCodec.encode(entry), kind: .value, for: name, generation: generation,
            timeToLive: front.timeToLive(storedAt: storedAt, expiresAt: expiresAt, hasValidators: false),
            tags: labels.map { front.names.tag($0, in: name.namespace) })
    }

    /// Whether a value entry stored under `key` is indexed under `label` (what ``write`` tagged it with).
    static func carries(_ entry: RESTSecondLevelEntry, _ label: SecondLevelNames.Label, key: String) -> Bool {
        switch label {
        case .kind(let kind): return kind == .value
        case .valueKey(let name): return name == key
        case .valueTag(let tag): return entry.metadata.domains.contains(tag)
        default: return false
        }
    }
}

extension RESTSecondLevelEntry {
    /// What is left of the entry's freshness at `now`, as the memory store's timeout.
    func remainingTimeout(at now: Date) -> Timeout {
        freshUntil.map { .seconds(OutsideValue.clampedSeconds(from: now, to: $0)) } ?? .never
    }
}
