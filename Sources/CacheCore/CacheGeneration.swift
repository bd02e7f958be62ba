/// A token that says "the scope as it was when I looked", taken before an upstream call and checked on insert.
///
/// Without it, a request that started before a logout could store its answer after the logout cleared the
/// session, resurrecting cleared data (write-after-clear). The token records the partition's generation number,
/// or — when the scope had no partition yet — the process-wide generation counter at that moment, so a
/// partition created *and* cleared while the call was in flight is still detected without keeping a tombstone per
/// ended scope.
///
/// Tokens of one scope are also ordered (``isNotOlder(than:)``): de-duplication lets a reader join an upstream
/// call only when no clear of the scope happened between the call's start and the reader's (read your writes).
public struct CacheGeneration: Hashable, Sendable {
    /// The partition's generation when taken; 0 when the scope had no partition.
    let partitionGeneration: UInt64
    /// The process-wide counter when taken: every generation number handed out later is larger.
    let observedCounter: UInt64
    /// Grows with every clear of the scope (and sometimes without one, e.g. when its partition is created): the
    /// partition's generation, or without a partition the latest drop recorded for the scope's slot.
    let epoch: UInt64

    init(partitionGeneration: UInt64, observedCounter: UInt64, epoch: UInt64) {
        self.partitionGeneration = partitionGeneration
        self.observedCounter = observedCounter
        self.epoch = epoch
    }

    /// Whether no clear of the scope happened between `other` and this token being taken (or this one was taken
    /// later): work started at this generation may then answer a reader that took `other`.
    ///
    /// Only meaningful for tokens of the same scope of the same store. Conservative: it may answer false without
    /// a clear in between (the scope's partition was created meanwhile), which costs one more upstream call,
    /// never a stale answer.
    public func isNotOlder(than other: CacheGeneration) -> Bool {
        epoch >= other.epoch
    }
}
