import CacheCore
import Foundation
import Synchronization

/// What every value door of one hub shares: the value store (one scope per session and the shared scope, charged to
/// the hub's memory budget), the calls in flight, the coder, the second level and the replication link.
///
/// The doors (``CachedValues``, ``SharedValues``) are views holding a scope and, for a session, the session itself
/// (its closed flag); everything else is here, once per hub.
///
/// The store's indexes carry the door's vocabulary: an entry's `domains` are its tags and its `entityKeys` hold its
/// own key, so a clear by tag or by key is an indexed clear that moves the scope to a new generation, and a factory
/// still running when it happens does not store its value (no write after clear).
@usableFromInline
final class ValueCore: Sendable {
    /// One factory run per key, scope and value type.
    struct FlightKey: Hashable, Sendable {
        let scope: CacheScope
        let key: String
        let type: ObjectIdentifier
    }

    typealias FlightResult = Result<any Sendable, any Error>

    @usableFromInline
    let store: CacheStore
    let flights = InFlightCalls<FlightKey, FlightResult>()
    let coder: any ValueCoder
    /// The sealed second level; nil without one.
    let secondLevel: SecondLevelFront?
    /// Publishes the doors' clears to the other replicas; nil without replication.
    let replication: ReplicationCoordinator?
    private let counters = Mutex(ValueCacheStatistics())
    /// The hub's resilience options, under each call's.
    let resilience: CacheResilience
    /// The settings whose domains may set options for the values they name by tag; nil for a core without them.
    @usableFromInline
    let settings: SettingsStore?
    /// The random extra on each stored value's lifetime.
    let jitter: CacheJitter
    /// The hub's eager-refresh threshold (read on every fresh hit).
    @usableFromInline
    let eagerRefreshThreshold: Double?
    /// Keys whose failing factory is not run again until the fail-safe throttle ends.
    let failSafeThrottle = FailSafeThrottle<FlightKey>()
    /// One eager refresh per key, scope and type.
    let eagerRefreshes = EagerRefreshGate<FlightKey>()
    /// Eager refreshes running, so tests and shutdown can wait for them.
    let backgroundRefreshes = BackgroundTasks()
    /// Answers decided by fail-safe, a soft timeout or an eager refresh.
    let staleAnswers = StaleAnswerCounts()

    init(
        store: CacheStore, coder: any ValueCoder, secondLevel: SecondLevelFront?,
        replication: ReplicationCoordinator?, resilience: CacheResilience = .none, settings: SettingsStore? = nil,
        jitter: CacheJitter = .none
    ) {
        self.settings = settings
        self.jitter = jitter
        self.store = store
        self.coder = coder
        self.secondLevel = secondLevel
        self.replication = replication
        self.resilience = resilience
        self.eagerRefreshThreshold = resilience.eagerRefreshThreshold
    }

    // MARK: Reading

    /// The value under `key` in `scope` after a miss in memory (the door's inlinable hit path looked first): one
    /// factory run (or second-level read) shared by every concurrent caller with the same key, scope and type.
    @usableFromInline
    func miss<Value: Codable & Sendable>(
        forKey key: String, tags: Set<String>, options: ValueCacheOptions, in scope: CacheScope,
        session: CacheSession?, factory: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let request = try ValueRequest(key: key, tags: tags, options: options)
        let flight = FlightKey(scope: scope, key: key, type: ObjectIdentifier(Value.self))
        let resilience = try self.resilience(for: options, tags: tags)
        if resilience.isEnabled {
            return try await resilientMiss(
                request, flight: flight, resilience: resilience, session: session, factory: factory)
        }
        let generation = store.generation(of: scope)
        let answer = await flights.run(
            flight, generation: generation,
            leading: {
                await self.secondLevelStep(Value.self, request, in: scope, session: session, generation: generation)
            },
            work: { levelGeneration in
                await self.produce(
                    request, in: scope, session: session, generation: generation, levelGeneration: levelGeneration,
                    factory: factory)
            })
        guard case .answered((let result, let joined)) = answer else { throw CancellationError() }
        if joined { counters.withLock { $0.joinedCalls += 1 } }
        // The flight is keyed by the value's type: a success always holds a `Value`, so the cast cannot fail.
        guard let value = try result.get() as? Value else { throw CancellationError() }
        return value
    }

    /// The leader's work: the second level, else the factory; then memory (and the second level) under the
    /// generation taken before, unless the session ended meanwhile.
    func produce<Value: Codable & Sendable>(
        _ request: ValueRequest, in scope: CacheScope, session: CacheSession?, generation: CacheGeneration,
        factory: @Sendable () async throws -> Value
    ) async -> FlightResult {
        switch await secondLevelStep(Value.self, request, in: scope, session: session, generation: generation) {
        case .answered(let result): return result
        case .continuing(let levelGeneration):
            return await produce(
                request, in: scope, session: session, generation: generation, levelGeneration: levelGeneration,
                factory: factory)
        }
    }

    /// The first step of a flight, taken by its leader in its own task: the second level's value (now in memory),
    /// or the generation it read, to write the factory's value back with.
    func secondLevelStep<Value: Codable & Sendable>(
        _ type: Value.Type, _ request: ValueRequest, in scope: CacheScope, session: CacheSession?,
        generation: CacheGeneration
    ) async -> InFlightLeaderStep<FlightResult, SecondLevelGeneration?> {
        guard request.options.secondLevel == .allowed, let front = secondLevel else { return .continuing(nil) }
        let level = ValueSecondLevel(front: front, scope: scope, session: session)
        switch await level.read(Value.self, key: request.key, coder: coder) {
        case .unavailable:
            return .continuing(nil)
        case .miss(let found, let undecodable):
            if undecodable { counters.withLock { $0.decodeFailures += 1 } }
            return .continuing(found)
        case .hit(let value, let entry):
            counters.withLock { $0.secondLevelHits += 1 }
            if session?.isClosed != true {
                store.insert(
                    value, byteCost: entry.body.count, key: request.key, scope: scope,
                    metadata: request.metadata(timeout: entry.remainingTimeout(at: level.front.wallClockNow())),
                    ifGeneration: generation)
            }
            return .answered(.success(value))
        }
    }

    /// The factory's part of a flight, in a task of its own: run it, then store its value in memory (and in the
    /// second level, under the generation the first step read).
    func produce<Value: Codable & Sendable>(
        _ request: ValueRequest, in scope: CacheScope, session: CacheSession?, generation: CacheGeneration,
        levelGeneration: SecondLevelGeneration?, factory: @Sendable () async throws -> Value
    ) async -> FlightResult {
        let level =
            request.options.secondLevel == .allowed
            ? secondLevel.map { ValueSecondLevel(front: $0, scope: scope, session: session) } : nil
        let value: Value
        do {
            value = try await factory()
            counters.withLock { $0.factoryRuns += 1 }
        } catch {
            counters.withLock {
                $0.factoryRuns += 1
                $0.factoryFailures += 1
            }
            return .failure(error)
        }
        let data: Data
        do {
            data = try coder.encode(value)
        } catch {
            return .failure(
                UnifiedCacheError(
                    code: .valueNotEncodable, message: "The value could not be encoded by the hub's value coder.",
                    place: "forKey", underlying: error))
        }
        // Closed while the factory ran: the value goes to its callers, not into the ended session's scope.
        guard session?.isClosed != true else {
            counters.withLock { $0.discardedAfterClear += 1 }
            return .success(value)
        }
        var metadata = request.metadata(
            timeout: jitter.applied(to: request.timeout, default: store.configuration.defaultTimeout))
        // Kept through maintenance for as long as fail-safe may serve it.
        metadata.staleRetention = (try? resilience(for: request.options, tags: request.tags))?.staleRetention ?? .zero
        let outcome = store.insert(
            value, byteCost: data.count, key: request.key, scope: scope, metadata: metadata, ifGeneration: generation)
        if outcome == .rejectedStaleGeneration {
            counters.withLock { $0.discardedAfterClear += 1 }
        } else if outcome == .stored, let level, let levelGeneration {
            level.write(
                data, key: request.key, tags: request.tags, timeout: metadata.timeout,
                default: store.configuration.defaultTimeout, generation: levelGeneration)
        }
        return .success(value)
    }

    // MARK: Clearing

    /// Removes `key` from `scope` (memory, then the second level), moving the scope to a new generation so a
    /// factory still running for it does not store. Returns the entries removed from memory.
    @discardableResult
    func clear(key: String, in scope: CacheScope, reason: ClearReason) async -> Int {
        let removed = store.clear(entityKey: key, in: scope, reason: reason).entries
        await secondLevel?.clear([.valueKey(key)], in: scope)
        return removed
    }

    /// Removes the entries of `scope` tagged with any of `tags`, as ``clear(key:in:reason:)`` does.
    @discardableResult
    func clear(tags: Set<String>, in scope: CacheScope, reason: ClearReason) async -> Int {
        var removed = 0
        for tag in tags.sorted() {
            removed += store.clear(domain: tag, in: scope, reason: reason).entries
        }
        await secondLevel?.clear(Set(tags.map { .valueTag($0) }), in: scope)
        return removed
    }

    /// Removes the entries tagged with any of `tags` from every scope this replica holds (every session and the
    /// shared scope). The second level has no index across sessions: it is emptied (as a settings reload that
    /// clears domains does), so no replica reads a cleared value back from it.
    @discardableResult
    func clearInEveryScope(tags: Set<String>, reason: ClearReason) async -> Int {
        var removed = 0
        // Every scope that looked a value up has a partition (a lookup makes one), so a factory still running for
        // a tagged key is in one of these scopes, or its scope was dropped (which also refuses its insert).
        for scope in Set(store.scopes + [.shared]) {
            for tag in tags.sorted() { removed += store.clear(domain: tag, in: scope, reason: reason).entries }
        }
        if !tags.isEmpty { await secondLevel?.clearAll() }
        return removed
    }

    /// Drops the whole scope (the session ended, or everything of it was cleared).
    func clearScope(_ scope: CacheScope, reason: ClearReason) -> ClearReport {
        store.clear(scope: scope, reason: reason)
    }

    // MARK: Statistics

    func statistics() -> ValueCacheStatistics {
        var statistics = counters.withLock { $0 }
        statistics.memory = store.statistics()
        return statistics
    }

    @usableFromInline
    static let ended = UnifiedCacheError(
        code: .sessionEnded, message: "The session ended: its value door refuses work.")
}

/// One call's arguments, checked once on the miss path (a hit does not pay for it).
struct ValueRequest: Sendable {
    let key: String
    let tags: Set<String>
    let options: ValueCacheOptions
    let timeout: Timeout

    init(key: String, tags: Set<String>, options: ValueCacheOptions) throws(UnifiedCacheError) {
        guard !key.isEmpty else {
            throw UnifiedCacheError(code: .invalidValueRequest, message: "A value's key is empty.", place: "forKey")
        }
        guard !tags.contains("") else {
            throw UnifiedCacheError(code: .invalidValueRequest, message: "A value's tag is empty.", place: "tags")
        }
        guard let timeout = options.timeout else {
            throw UnifiedCacheError(
                code: .invalidValueRequest, message: "A value's duration is negative.",
                place: "options.duration")
        }
        self.key = key
        self.tags = tags
        self.options = options
        self.timeout = timeout
    }

    /// The store's metadata: the tags in the indexed `domains`, the key in the indexed `entityKeys`.
    func metadata(timeout: Timeout) -> CacheEntryMetadata {
        CacheEntryMetadata(timeout: timeout, domains: tags, entityKeys: [key])
    }
}
