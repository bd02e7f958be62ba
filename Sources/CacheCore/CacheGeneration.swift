/// A token that says "the scope as it was when I looked", taken before an upstream call and checked on insert.
///
/// Without it, a request that started before a logout could store its answer after the logout cleared the
/// session, resurrecting cleared data (write-after-clear). The token records the partition's generation number,
/// or — when the scope had no partition yet — the process-wide generation counter at that moment, so a
/// partition created *and* cleared while the call was in flight is still detected without keeping a tombstone per
/// ended scope.
public struct CacheGeneration: Hashable, Sendable {
    /// The partition's generation when taken; 0 when the scope had no partition.
    let partitionGeneration: UInt64
    /// The process-wide counter when taken: every generation number handed out later is larger.
    let observedCounter: UInt64

    init(partitionGeneration: UInt64, observedCounter: UInt64) {
        self.partitionGeneration = partitionGeneration
        self.observedCounter = observedCounter
    }
}
