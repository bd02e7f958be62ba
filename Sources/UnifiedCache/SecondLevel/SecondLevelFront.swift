import CacheCore
import Foundation
import Synchronization

/// The hub's side of the second level: names, what is stored under which tags, the clears, and the counters the
/// store does not keep. One per hub; each session's REST service talks to it through a ``SecondLevelRESTAdapter``.
///
/// One L2 clear per clear: a clear made here is applied to the store here, and the same clear arriving from
/// another replica over the replication bus (applied with publishing suppressed) is not applied again.
final class SecondLevelFront: Sendable {
    let configuration: SecondLevelConfiguration
    /// Names under the current key: what this replica reads and writes.
    let names: SecondLevelNames
    /// The shared scope's namespace, hashed once: every session's REST and GraphQL view (made on each access) names
    /// it beside the session's own.
    let sharedNamespace: SecondLevelNamespace
    /// Names under every key of the ring, current first: what clears reach (see ``SecondLevelSecret``).
    let namesUnderEveryKey: [SecondLevelNames]
    /// Seals every value written, opens every value read.
    let sealing: SecondLevelSealing
    /// Refuses hits under a generation set back (see ``SecondLevelGenerationGuard``).
    let generations: SecondLevelGenerationGuard
    /// Refuses values sealed before a clear this replica saw, whatever Redis holds (see ``SecondLevelClearMarks``).
    let marks: SecondLevelClearMarks
    /// Skips the store while it keeps failing (see ``SecondLevelConfiguration/CircuitBreaker``); clears never skip it.
    let circuit: SecondLevelCircuit
    /// The wall clock stored-at times are written on (the hub's).
    private let clock: any CacheClock
    /// The store's key prefix, bound into every value.
    private let keyPrefix: String
    /// The key prefixes clears name (the domain map's and the invalidation rules'), for tagging entries.
    private let knownPrefixes: @Sendable () -> Set<String>
    private let counters = Mutex(Counters())
    /// Clears started from synchronous code (a GraphQL mutation's record changes), so shutdown can wait for them.
    let pending = BackgroundTasks()

    struct Counters {
        var unusable = 0
        var clears = 0
        var rejected = SecondLevelRejections()
        /// Rejections of reads that found no value (a malformed or implausible generation on a miss).
        var rejectedMisses = 0
    }

    /// - Parameters:
    ///   - clock: the hub's clock, which dates both the values written and the clears seen.
    ///   - clockSkew: how far apart the fleet's wall clocks may be (the replication bus's allowance).
    init(
        configuration: SecondLevelConfiguration, clock: any CacheClock, clockSkew: Duration,
        knownPrefixes: @escaping @Sendable () -> Set<String>
    ) {
        self.configuration = configuration
        self.clock = clock
        self.marks = SecondLevelClearMarks(skew: clockSkew)
        self.circuit = SecondLevelCircuit(
            configuration: configuration.circuitBreaker, clock: clock, observer: configuration.observer)
        self.names = SecondLevelNames(secret: configuration.secret)
        self.sharedNamespace = names.namespace(of: .shared)
        self.namesUnderEveryKey = configuration.secret.everyKey.map(SecondLevelNames.init(secret:))
        self.sealing = SecondLevelSealing(secret: configuration.secret)
        self.generations = SecondLevelGenerationGuard(memory: configuration.maximumTimeToLive)
        self.keyPrefix = configuration.store.keyPrefix
        self.knownPrefixes = knownPrefixes
    }

    var store: any SecondLevelStore { configuration.store }

    /// Whether this clear is another replica's, applied here: that replica cleared the second level already.
    static var isReplicatedClear: Bool { ReplicationCoordinator.publishingSuppressed }

    // MARK: Entries

    /// The namespaces one session reads and writes, hashed once for the session's life: its own and the shared one.
    struct SessionNamespaces: Sendable {
        let scope: CacheScope
        let session: SecondLevelNamespace
        let shared: SecondLevelNamespace

        func of(_ scope: CacheScope) -> SecondLevelNamespace? {
            scope == .shared ? shared : (scope == self.scope ? session : nil)
        }
    }

    /// The namespace of `scope`: the shared one (hashed when the front was made), or a session's, hashed now (a
    /// session keeps its own: ``CacheSession/secondLevelNamespace(_:)``).
    func namespace(of scope: CacheScope) -> SecondLevelNamespace {
        scope == .shared ? sharedNamespace : names.namespace(of: scope)
    }

    /// A view's namespaces, its session's own hashed before (see ``CacheSession/secondLevelNamespace(_:)``).
    func namespaces(for scope: CacheScope, session: SecondLevelNamespace) -> SessionNamespaces {
        SessionNamespaces(scope: scope, session: session, shared: sharedNamespace)
    }

    /// The name of an entry, with the session's namespaces hashed once.
    func key(_ kind: SecondLevelNames.Kind, _ cacheKey: String, in scope: CacheScope, _ known: SessionNamespaces)
        -> SecondLevelKey
    {
        names.key(kind, cacheKey, in: known.of(scope) ?? namespace(of: scope))
    }

    func tags(ofREST metadata: CacheEntryMetadata, key: String, in namespace: SecondLevelNamespace)
        -> [SecondLevelTag]
    {
        SecondLevelNames.labels(ofREST: metadata, key: key, knownPrefixes: knownPrefixes()).map {
            names.tag($0, in: namespace)
        }
    }

    func recordUnusable() {
        counters.withLock { $0.unusable += 1 }
    }

    func recordRejected(_ refusal: SecondLevelSealing.Refusal) {
        counters.withLock { $0.rejected.count(refusal) }
    }

    /// How a kind of entry answers the clear marks: when it was stored, and whether it is indexed under a label.
    struct Dating<Entry> {
        var storedAt: (Entry) -> Date
        var carries: (Entry, SecondLevelNames.Label) -> Bool
    }

    /// Reads `key` with the configured deadline, checks its size (before any cryptography) and generation, opens
    /// it for where it was read and decodes it: what every door's adapter answers its door with (a value refused or
    /// not decodable is a miss, counted). A refused value is a miss, so the fresh answer replaces it; a hit
    /// under a generation set back is unavailable, so nothing is written under that generation. While the circuit
    /// breaker is open the store is not asked: unavailable at once.
    func lookup<Entry>(
        _ key: SecondLevelKey, kind: SecondLevelNames.Kind, decode: ([UInt8]) -> Entry?, dating: Dating<Entry>
    ) async -> SecondLevelEntryRead<Entry> {
        guard let permit = circuit.permitRead() else { return .unavailable }
        let read = await store.read(key, deadline: configuration.readDeadline)
        switch read {
        case .unavailable(.stopped): break  // shut down: says nothing about the store's health
        case .unavailable: circuit.record(permit, failed: true)
        case .hit, .miss: circuit.record(permit, failed: false)
        }
        switch read {
        case .unavailable:
            return .unavailable
        case .miss(let generation):
            guard admits(generation, key, isHit: false) else {
                counters.withLock { $0.rejectedMisses += 1 }
                return .unavailable
            }
            return .miss(generation: generation)
        case .hit(let bytes, let generation):
            guard bytes.count <= store.maximumValueBytes else {
                recordRejected(.oversize)
                return .miss(generation: generation)
            }
            guard admits(generation, key, isHit: true) else { return .unavailable }
            switch sealing.open(bytes, for: binding(key, kind, generation)) {
            case .failure(let refusal):
                recordRejected(refusal)
                return .miss(generation: generation)
            case .success(let plaintext):
                guard let entry = decode(plaintext) else {
                    recordUnusable()
                    return .miss(generation: generation)
                }
                let origin = SecondLevelSealing.origin(of: bytes)
                let seal = SecondLevelClearMarks.Seal(
                    storedAt: dating.storedAt(entry), sender: origin.sender, counter: origin.counter)
                if marks.refuses(seal, in: key.namespace.name, carries: { dating.carries(entry, $0) }) {
                    recordRejected(.cleared)
                    return .miss(generation: generation)
                }
                return .hit(entry, generation: generation)
            }
        }
    }

    /// The generation guard's verdict on a read, counted and reported; false when nothing may be used or written
    /// under `generation`.
    private func admits(_ generation: SecondLevelGeneration, _ key: SecondLevelKey, isHit: Bool) -> Bool {
        switch generations.verdict(generation, in: key.namespace, isHit: isHit) {
        case .admitted:
            return true
        case .rollback:
            recordRejected(.rollback)
        case .malformed:
            recordRejected(.malformed)
        case .implausible(let firstTime):
            recordRejected(.implausible)
            if firstTime { configuration.observer?(.implausibleGeneration(namespace: key.namespace.name)) }
        }
        return false
    }

    /// Seals `plaintext` for `key` in `generation` and queues it; dropped (counted) while the circuit breaker is
    /// not closed.
    func write(
        _ plaintext: [UInt8], kind: SecondLevelNames.Kind, for key: SecondLevelKey,
        generation: SecondLevelGeneration, timeToLive: Duration, tags: [SecondLevelTag]
    ) {
        guard circuit.permitsWrite() else { return }
        store.write(
            sealing.seal(plaintext, for: binding(key, kind, generation)), for: key, generation: generation,
            timeToLive: timeToLive, tags: tags)
    }

    func binding(_ key: SecondLevelKey, _ kind: SecondLevelNames.Kind, _ generation: SecondLevelGeneration)
        -> SecondLevelSealing.Binding
    {
        SecondLevelSealing.Binding(
            keyPrefix: keyPrefix, namespace: key.namespace.name, kind: kind.rawValue, name: key.name,
            generation: generation.token)
    }

    /// How long the store keeps an entry stored at `storedAt` that is fresh until `expiresAt` (nil: no expiry).
    func timeToLive(storedAt: Date, expiresAt: Date?, hasValidators: Bool) -> Duration {
        let lifetime = expiresAt.map { OutsideValue.clampedDuration(seconds: $0.timeIntervalSince(storedAt)) }
        return configuration.timeToLive(lifetime: lifetime, hasValidators: hasValidators)
    }

    // MARK: Clears

    /// A whole session (logout, expiry, principal change, clear all): one command per key of the ring, whatever
    /// it holds. Another replica's clear is not applied again, but this replica remembers it (no hit of the old
    /// generation is trusted after it).
    func clearNamespace(of scope: CacheScope) async {
        guard !Self.isReplicatedClear else {
            noteNamespaceCleared(of: scope)
            return
        }
        await applyNamespaceClear(of: scope)
    }

    /// ``clearNamespace(of:)`` already decided (a session ending decides when it begins).
    func applyNamespaceClear(of scope: CacheScope) async {
        counters.withLock { $0.clears += 1 }
        noteNamespaceCleared(of: scope)
        for names in namesUnderEveryKey {
            await store.clearNamespace(names.namespace(of: scope))
        }
    }

    /// The namespace of `scope` was cleared (here or by another replica): hits of the generation this replica saw,
    /// and values sealed before now, are refused.
    func noteNamespaceCleared(of scope: CacheScope) {
        marks.markNamespace(names.namespace(of: scope).name, clearMark())
        for names in namesUnderEveryKey { generations.cleared(names.namespace(of: scope)) }
    }

    /// The entries of `scope` indexed under any of `labels` were cleared (here or by another replica): values of
    /// them sealed before now are refused, whatever Redis still holds.
    func noteCleared(_ labels: Set<SecondLevelNames.Label>, in scope: CacheScope) {
        guard !labels.isEmpty else { return }
        marks.mark(labels, in: names.namespace(of: scope).name, clearMark())
    }

    /// Now, as the clear marks date a clear: the wall clock and where this replica's sealer stands.
    func clearMark() -> SecondLevelClearMarks.Mark {
        let position = sealing.position()
        return SecondLevelClearMarks.Mark(at: clock.wallClockNow(), sender: position.sender, counter: position.counter)
    }

    /// The wall clock values and clears are dated on.
    func wallClockNow() -> Date { clock.wallClockNow() }

    /// Clears of `scope`'s session that arrived before this replica held it (see ``PendingClearMarks``): from now on,
    /// its values sealed before them are refused, as if the clears had been applied to it here.
    func adopt(_ owed: PendingClearMarks.Entry, for scope: CacheScope) {
        let namespace = names.namespace(of: scope).name
        if let whole = owed.whole { marks.markNamespace(namespace, whole) }
        for (label, mark) in owed.labels { marks.mark([label], in: namespace, mark) }
    }

    /// The entries of `scope` indexed under any of `labels`, under every key of the ring.
    func clear(_ labels: Set<SecondLevelNames.Label>, in scope: CacheScope) async {
        noteCleared(labels, in: scope)
        guard !labels.isEmpty, !Self.isReplicatedClear else { return }
        counters.withLock { $0.clears += 1 }
        for (tags, namespace) in tagClears(labels, in: scope) {
            await store.clearTags(tags, in: namespace)
        }
    }

    /// ``clear(_:in:)`` from code that cannot wait: decided now (a replicated clear is not repeated), applied on a
    /// task of its own.
    func clearInBackground(_ labels: Set<SecondLevelNames.Label>, in scope: CacheScope) {
        noteCleared(labels, in: scope)
        guard !labels.isEmpty, !Self.isReplicatedClear else { return }
        counters.withLock { $0.clears += 1 }
        let clears = tagClears(labels, in: scope)
        let store = store
        _ = pending.start {
            for (tags, namespace) in clears { await store.clearTags(tags, in: namespace) }
        }
    }

    private func tagClears(_ labels: Set<SecondLevelNames.Label>, in scope: CacheScope)
        -> [([SecondLevelTag], SecondLevelNamespace)]
    {
        namesUnderEveryKey.map { names in
            let namespace = names.namespace(of: scope)
            return (labels.map { names.tag($0, in: namespace) }, namespace)
        }
    }

    /// Every namespace of the fleet at once.
    func clearAll() async {
        marks.markEverything(clearMark())
        generations.clearedAll()
        guard !Self.isReplicatedClear else { return }
        counters.withLock { $0.clears += 1 }
        await store.clearAll()
    }

    // MARK: Statistics

    func statistics() -> SecondLevelCacheStatistics {
        let counted = counters.withLock { $0 }
        var statistics = SecondLevelCacheStatistics(
            store: store.statistics(), unusable: counted.unusable, clears: counted.clears, rejected: counted.rejected)
        statistics.rejectedMisses = counted.rejectedMisses
        let circuit = circuit.counters
        statistics.circuitOpenings = circuit.openings
        statistics.skippedReads = circuit.skippedReads
        statistics.skippedWrites = circuit.skippedWrites
        statistics.isCircuitOpen = circuit.isOpen
        return statistics
    }
}

/// What a hub's second level did: the store's counters plus the caches' own.
public struct SecondLevelCacheStatistics: Sendable, Equatable {
    /// The store's counters (reads, writes, bytes, latency, connection).
    public var store: SecondLevelStatistics
    /// Values that opened but could not be used — of another encoding version, a body that no longer decodes as the
    /// request's type, or a time no replica could have written (not a date between years 1 and 9999, or a stored-at
    /// time far from this replica's clock). Each was treated as a miss.
    public var unusable: Int
    /// Clears this replica applied to the second level (clears received from other replicas are not repeated).
    public var clears: Int
    /// Values refused before use — oversize, not sealed, altered, forged, moved, under a generation set back or of
    /// another form, or sealed before a clear this replica saw.
    /// Each was treated as a miss, never served.
    public var rejected: SecondLevelRejections
    /// The rejections counted on reads that found no value (a generation of another form on a miss): not hits.
    var rejectedMisses = 0
    /// Times the circuit breaker opened (see ``SecondLevelConfiguration/CircuitBreaker``).
    public var circuitOpenings = 0
    /// Reads not sent to the store because the circuit breaker was open: misses that paid no deadline.
    public var skippedReads = 0
    /// Writes not queued because the circuit breaker was not closed.
    public var skippedWrites = 0
    /// Whether the circuit breaker is open (or half-open, its trial under way) now.
    public var isCircuitOpen = false

    public init(
        store: SecondLevelStatistics, unusable: Int = 0, clears: Int = 0,
        rejected: SecondLevelRejections = SecondLevelRejections()
    ) {
        self.store = store
        self.unusable = unusable
        self.clears = clears
        self.rejected = rejected
    }

    /// Reads that found a usable value.
    public var hits: Int { max(0, store.hits - unusable - rejectedValues) }
    /// Reads that found nothing usable (unusable and rejected values included).
    public var misses: Int { store.misses + min(unusable + rejectedValues, store.hits) }
    /// Rejections of values found (the store counted them as hits).
    private var rejectedValues: Int { max(0, rejected.total - rejectedMisses) }
}

/// Second-level values refused, by reason (the `reason` label of `ucache_l2_rejected_total`).
public struct SecondLevelRejections: Sendable, Equatable, Codable, Hashable {
    /// Not a sealed value of this format: a plaintext value of an earlier release, truncated, or random bytes.
    public var format = 0
    /// Sealed under a key the ring does not hold, altered, forged, or copied from another key, namespace or
    /// generation: the authentication tag did not verify.
    public var unauthentic = 0
    /// Larger than the store's value limit: refused before any cryptography.
    public var oversize = 0
    /// A hit under a generation older than one this replica saw or cleared (a generation key set back).
    public var rollback = 0
    /// A read whose generation or epoch was not `<epoch>.<generation>` of two decimal `UInt64`s (a key written by
    /// someone else): never a hit, and it moves no mark.
    public var malformed = 0
    /// A read under a generation or epoch beyond any the fleet writes: never a hit, and it moves no mark (see
    /// ``SecondLevelEvent/implausibleGeneration(namespace:)``).
    public var implausible = 0
    /// A value sealed before a clear this replica saw (here or over the replication bus), found because Redis lost or
    /// was made to forget that clear: deleted tag sets, a value written back.
    public var cleared = 0

    public init() {}

    /// Every rejection.
    public var total: Int { format + unauthentic + oversize + rollback + malformed + implausible + cleared }

    mutating func count(_ refusal: SecondLevelSealing.Refusal) {
        switch refusal {
        case .format: format += 1
        case .unauthentic: unauthentic += 1
        case .oversize: oversize += 1
        case .rollback: rollback += 1
        case .malformed: malformed += 1
        case .implausible: implausible += 1
        case .cleared: cleared += 1
        }
    }

    /// `(reason, count)` in a fixed order, for the exporters.
    var byReason: [(String, Int)] {
        [
            ("format", format), ("unauthentic", unauthentic), ("oversize", oversize), ("rollback", rollback),
            ("malformed", malformed), ("implausible", implausible), ("cleared", cleared),
        ]
    }
}
