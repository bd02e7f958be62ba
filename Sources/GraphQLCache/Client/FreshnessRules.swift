import CacheCore
import GraphQLLanguage

/// A client's ``GraphQLCacheConfig`` with what every read needs precomputed.
///
/// A class (immutable, so `Sendable` as it is): every read's judge holds the rules, and a copy of a struct of
/// dictionaries and sets cost a retain and a release for each of them per read.
final class FreshnessRules: Sendable {
    let config: GraphQLCacheConfig
    /// Typename → fields with a time-to-live of their own (from ``GraphQLCacheConfig/fieldTimeouts``, `.useDefault`
    /// entries left out).
    let separatedFields: [String: Set<String>]
    /// Whether only the global default applies below the query level (no type or field rules).
    let isUniform: Bool
    /// Typenames with a rule of their own (not `.useDefault`): upstream hints on their fields give way to it.
    let ruledTypenames: Set<String>
    /// The extra time-to-live of each write (see ``GraphQLCacheConfig/jitterMaxDuration``).
    let jitter: CacheJitter
    /// Mixed into every write time the jitter is drawn from, so two processes writing at the same instant of their
    /// clocks draw different extras.
    static let jitterSalt = UInt64.random(in: .min ... .max)

    init(_ config: GraphQLCacheConfig) {
        self.config = config
        var separated: [String: Set<String>] = [:]
        // A `.useDefault` field rule passes to the next step (its type's rule, the upstream's hint, the default): its
        // field is gathered with its type, as if it had no rule.
        for (coordinate, timeout) in config.fieldTimeouts where timeout != .useDefault {
            if let (typename, field) = GraphQLCacheConfig.split(coordinate) {
                separated[typename, default: []].insert(field)
            }
        }
        self.separatedFields = separated
        self.isUniform = config.typeTimeouts.isEmpty && config.fieldTimeouts.isEmpty
        self.ruledTypenames = Set(config.typeTimeouts.filter { $0.value != .useDefault }.keys)
        self.jitter = CacheJitter(maxDuration: config.jitterMaxDuration, maxFraction: config.jitterMaxFraction)
    }

    /// How long a field written at `instant` under a local rule of `lifetime` stays fresh: the lifetime and the
    /// write's own stable jitter.
    func lifetime(_ lifetime: Duration, writtenAt instant: CacheInstant) -> Duration {
        guard !jitter.isNone else { return lifetime }
        let seed = UInt64(bitPattern: instant.nanoseconds) ^ Self.jitterSalt
        return lifetime + jitter.stableExtra(forLifetime: lifetime, seed: seed)
    }

    /// How the store should judge one read: `nil` when nothing can make it stale. With a `lifetimeShare` below 1,
    /// every lifetime counts for that share of itself (an answer past it is late in its life: eager refresh).
    func freshness(
        queryTimeout: QueryCacheTimeout,
        now: CacheInstant,
        staleBefore: CacheInstant?,
        lifetimeShare: Double = 1
    ) -> ReadFreshness? {
        let judge = FreshnessJudge(
            rules: self, queryTimeout: queryTimeout, now: now, staleBefore: staleBefore, lifetimeShare: lifetimeShare)
        guard judge.canBeStale else {
            return nil
        }
        let perField = config.isTimeoutEnabled && queryTimeout == .useDefault && !isUniform
        return ReadFreshness(
            separatedFields: perField ? separatedFields : [:],
            ruledTypenames: perField ? ruledTypenames : [],
            judge: judge
        )
    }
}

/// Decides the staleness of one answer from the write times of the fields it read.
struct FreshnessJudge {
    let rules: FreshnessRules
    let queryTimeout: QueryCacheTimeout
    let now: CacheInstant
    let staleBefore: CacheInstant?
    /// The share of each lifetime that counts (1: all of it).
    var lifetimeShare: Double = 1

    /// Whether any rule could find an answer stale.
    var canBeStale: Bool {
        staleBefore != nil || (rules.config.isTimeoutEnabled && queryTimeout != .never)
    }

    /// How long past its time-to-live the answer is (the worst field), or `nil` when it is fresh.
    ///
    /// The precedence, first match wins: the query-level timeout (explicit `cacheTimeout:`, else the query type's,
    /// else what the caching policy hook decided) for every field; else per field its coordinate's rule, else its
    /// type's rule; else the upstream's hint (`upstreamExpiry`: the fields it covers are not in `byTypename`);
    /// else the default.
    func staleness(
        oldest: CacheInstant?,
        byTypename: OldestByTypename,
        byCoordinate: [String: CacheInstant],
        upstreamExpiry: CacheInstant? = nil
    ) -> Duration? {
        guard let oldest else {
            return nil
        }
        var worst: Duration?
        if let staleBefore, oldest <= staleBefore {
            worst = now.duration(since: staleBefore)
        }
        let config = rules.config
        guard config.isTimeoutEnabled else {
            return worst
        }
        switch queryTimeout {
        case .never:
            return worst
        case .seconds(let seconds):
            return Self.worse(worst, excess(since: oldest, seconds: seconds))
        case .useDefault:
            if var upstreamExpiry {
                if lifetimeShare < 1, upstreamExpiry > oldest {
                    upstreamExpiry = oldest.advanced(by: upstreamExpiry.duration(since: oldest) * lifetimeShare)
                }
                if now > upstreamExpiry {
                    worst = Self.worse(worst, now.duration(since: upstreamExpiry))
                }
            }
            if rules.isUniform, upstreamExpiry == nil {
                return Self.worse(worst, excess(since: oldest, seconds: config.defaultTimeout))
            }
            byTypename.forEachOldest { typename, instant in
                let timeout = config.typeTimeouts[typename] ?? .useDefault
                if let seconds = timeout.timeInterval(default: config.defaultTimeout) {
                    worst = Self.worse(worst, excess(since: instant, seconds: seconds))
                }
            }
            for (coordinate, instant) in byCoordinate {
                var timeout = config.fieldTimeouts[coordinate] ?? .useDefault
                if timeout == .useDefault, let (typename, _) = GraphQLCacheConfig.split(coordinate) {
                    timeout = config.typeTimeouts[typename] ?? .useDefault
                }
                if let seconds = timeout.timeInterval(default: config.defaultTimeout) {
                    worst = Self.worse(worst, excess(since: instant, seconds: seconds))
                }
            }
            return worst
        }
    }

    /// How far past `seconds` the age of a write is, or `nil` within it (the seed: expired when age > timeout).
    private func excess(since instant: CacheInstant, seconds: Double) -> Duration? {
        let age = now.duration(since: instant)
        var lifetime = rules.lifetime(OutsideValue.clampedDuration(seconds: seconds), writtenAt: instant)
        if lifetimeShare < 1 {
            lifetime = lifetime * lifetimeShare
        }
        return age > lifetime ? age - lifetime : nil
    }

    private static func worse(_ lhs: Duration?, _ rhs: Duration?) -> Duration? {
        guard let lhs else {
            return rhs
        }
        guard let rhs else {
            return lhs
        }
        return max(lhs, rhs)
    }
}
