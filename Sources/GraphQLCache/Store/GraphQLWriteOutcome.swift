/// What a write did to the store.
import GraphQLLanguage

public enum GraphQLWriteOutcome: Sendable {
    /// The response was merged; these are the changes.
    case written(GraphQLChangeSet)
    /// The scope was cleared after the generation passed to the write was taken (a logout while the request
    /// was in flight, say); nothing was stored.
    case rejectedStaleGeneration
    /// The response alone needs more records or bytes than one scope may hold; nothing was stored.
    case rejectedTooLarge

    /// The changes, when the response was merged.
    public var changes: GraphQLChangeSet? {
        if case .written(let changes) = self {
            return changes
        }
        return nil
    }
}

/// The records and fields a write changed: what part 2's watchers and refetch logic key on.
///
/// A field counts as changed when it is new or its value differs; rewriting the same value only renews its
/// write time. Kept as storage keys per record and formatted as `Account:123.balance` only when asked, because
/// a first write of a large response changes every field.
public struct GraphQLChangeSet: Sendable, Hashable {
    /// Record key → storage keys of its changed fields (`balance`, `transactions({"first":20})`, and
    /// `__typename` when an existing record's type changed). Records with no changed field are absent.
    public let changedFieldsByRecord: [String: [String]]
    /// How many records the response wrote, changed or not.
    public let recordsWritten: Int
    /// How many of them were new.
    public let recordsCreated: Int

    /// Creates a change set.
    public init(changedFieldsByRecord: [String: [String]], recordsWritten: Int, recordsCreated: Int) {
        self.changedFieldsByRecord = changedFieldsByRecord
        self.recordsWritten = recordsWritten
        self.recordsCreated = recordsCreated
    }

    /// Keys of the records with at least one changed field.
    public var changedRecordKeys: Set<String> {
        Set(changedFieldsByRecord.keys)
    }

    /// Changed fields as `recordKey.storageKey`, e.g. `Account:123.balance`.
    public var changedFieldKeys: Set<String> {
        var keys = Set<String>()
        for (record, fields) in changedFieldsByRecord {
            for field in fields {
                keys.insert(record + "." + field)
            }
        }
        return keys
    }

    /// Whether nothing changed (the response repeated what was cached).
    public var isEmpty: Bool {
        changedFieldsByRecord.isEmpty
    }
}
