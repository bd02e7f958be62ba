/// What a front door's read of the second level found, its value opened and decoded as the door's entry type.
///
/// One shape for every door (REST answers, GraphQL results, cached values), so the code that reads the second level,
/// judges a read and reports it is written once over it. The store's own read (``SecondLevelRead``) carries opaque
/// bytes and why it failed; this is what is left once the facade opened and decoded them: trouble of any kind is
/// ``unavailable`` (go upstream and write nothing back), a value refused or not decodable is a ``miss(generation:)``.
public enum SecondLevelEntryRead<Entry> {
    /// An entry (fresh or not: the door judges it on its clock) and the generation to write back with.
    case hit(Entry, generation: SecondLevelGeneration)
    /// Nothing usable under the key; an answer fetched now may be written with `generation`.
    case miss(generation: SecondLevelGeneration)
    /// No answer (timeout, error, stopped, a generation that cannot be trusted): go upstream and write nothing back.
    case unavailable

    /// The outcome telemetry gives the read: ``CacheOutcome/hit`` or ``CacheOutcome/miss`` (an unavailable store
    /// is a miss, with a failure of its own).
    public var outcome: CacheOutcome {
        if case .hit = self { return .hit }
        return .miss
    }
}

extension SecondLevelEntryRead: Sendable where Entry: Sendable {}
extension SecondLevelEntryRead: Equatable where Entry: Equatable {}
