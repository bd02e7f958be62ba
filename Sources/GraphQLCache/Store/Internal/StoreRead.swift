import CacheCore

/// What a read found, apart from the data itself: the facts of a hit, or the miss.
///
/// Not generic: the client's hit path carries it through several functions generic over the caller's type, and
/// every generic type met there (a hit, a result, an optional of them) costs a look-up of its metadata at run time
/// in each function, which were a fifth of a small hit. The data travels separately, as the caller's own value.
enum StoreRead {
    case hit(ReadFacts)
    case miss(GraphQLCacheMiss)

    /// The public form, given the data a hit read (`nil` on a miss).
    func result<Value>(_ data: Value?) -> GraphQLReadResult<Value> {
        switch self {
        case .hit(let facts):
            guard let data else {
                return .miss(GraphQLCacheMiss(path: "", reason: .missingField, touchedRecordKeys: []))
            }
            return .hit(facts.hit(data))
        case .miss(let miss):
            return .miss(miss)
        }
    }
}

/// What a caller needs to judge a hit's freshness (see ``GraphQLCacheHit``, which carries the same with the data).
struct ReadFacts {
    var touchedRecordKeys: Set<String>
    var oldestWrite: CacheInstant?
    var oldestWriteByTypename: OldestByTypename
    var oldestWriteByCoordinate: [String: CacheInstant]
    var upstreamExpiry: CacheInstant?

    func hit<Value>(_ data: Value) -> GraphQLCacheHit<Value> {
        GraphQLCacheHit(
            data: data,
            touchedRecordKeys: touchedRecordKeys,
            oldestWrite: oldestWrite,
            oldestWriteByTypename: oldestWriteByTypename.dictionary,
            oldestWriteByCoordinate: oldestWriteByCoordinate,
            upstreamExpiry: upstreamExpiry
        )
    }
}

/// How a reader judges a hit's freshness: the store keeps write times, its caller knows the time-to-live rules.
struct ReadFreshness {
    /// Typename → field names whose write times are gathered per schema coordinate (fields with a TTL of their
    /// own), so they do not count for their type's TTL.
    var separatedFields: [String: Set<String>]
    /// Typenames with a TTL of their own: the upstream's hints on their fields give way to it.
    var ruledTypenames: Set<String> = []
    /// How long past its time-to-live a hit is, from its oldest write times (overall, per typename, per
    /// coordinate) and the earliest end of an upstream hint. Held as a value, not as a closure over it: a closure's
    /// context is an allocation per read.
    var judge: FreshnessJudge

    /// How long past its time-to-live a hit is; `nil` when it is fresh.
    func staleness(
        _ oldestWrite: CacheInstant?,
        _ byTypename: [String: CacheInstant],
        _ byCoordinate: [String: CacheInstant],
        upstreamExpiry: CacheInstant? = nil
    ) -> Duration? {
        judge.staleness(
            oldest: oldestWrite, byTypename: OldestByTypename(byTypename), byCoordinate: byCoordinate,
            upstreamExpiry: upstreamExpiry)
    }

    /// How long past its time-to-live a hit with these `facts` is; `nil` when it is fresh.
    func staleness(of facts: ReadFacts) -> Duration? {
        judge.staleness(
            oldest: facts.oldestWrite, byTypename: facts.oldestWriteByTypename,
            byCoordinate: facts.oldestWriteByCoordinate, upstreamExpiry: facts.upstreamExpiry)
    }
}

/// How a read is counted.
enum ReadOutcome {
    case hit
    case staleHit
    case miss
}
