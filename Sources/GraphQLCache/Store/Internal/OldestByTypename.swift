import CacheCore

/// The oldest write time per typename among the fields a read went through (what
/// ``GraphQLCacheHit/oldestWriteByTypename`` reports), gathered without a dictionary for the first two typenames.
///
/// A read of one object meets two typenames (the root's and the object's): a dictionary for them cost a hit more than
/// a thousand instructions (its storage allocated, then grown, and every typename hashed), and the client's reads
/// under uniform rules never even look at it. Typenames past the second go to a dictionary, so a selection over
/// many types still finds each by its hash.
struct OldestByTypename {
    private var first: (typename: String, instant: CacheInstant)?
    private var second: (typename: String, instant: CacheInstant)?
    private var more: [String: CacheInstant] = [:]

    init() {}

    init(_ dictionary: [String: CacheInstant]) {
        for (typename, instant) in dictionary {
            lower(typename, to: instant)
        }
    }

    /// Keeps `instant` for `typename` when it is the first for it or older than the one kept.
    mutating func lower(_ typename: String, to instant: CacheInstant) {
        if Self.lower(&first, typename, instant) || Self.lower(&second, typename, instant) { return }
        if more[typename].map({ instant < $0 }) ?? true {
            more[typename] = instant
        }
    }

    /// Takes `typename` into an empty `slot`, or lowers the slot that holds it; false when it holds another.
    private static func lower(
        _ slot: inout (typename: String, instant: CacheInstant)?, _ typename: String, _ instant: CacheInstant
    ) -> Bool {
        guard let kept = slot else {
            slot = (typename, instant)
            return true
        }
        guard kept.typename == typename else { return false }
        if instant < kept.instant { slot = (typename, instant) }
        return true
    }

    /// The oldest write kept for `typename`.
    subscript(typename: String) -> CacheInstant? {
        if let first, first.typename == typename { return first.instant }
        if let second, second.typename == typename { return second.instant }
        return more[typename]
    }

    /// Calls `body` with every typename and its oldest write, in no particular order.
    func forEachOldest(_ body: (String, CacheInstant) -> Void) {
        if let first { body(first.typename, first.instant) }
        if let second { body(second.typename, second.instant) }
        for (typename, instant) in more {
            body(typename, instant)
        }
    }

    /// The same as a dictionary (the public hit's form).
    var dictionary: [String: CacheInstant] {
        var result: [String: CacheInstant] = [:]
        result.reserveCapacity((first == nil ? 0 : 1) + (second == nil ? 0 : 1) + more.count)
        forEachOldest { result[$0] = $1 }
        return result
    }
}
