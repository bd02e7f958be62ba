import CacheCore
import GraphQLLanguage

/// What a read that checks while it decodes learned of a record's own fields on entering it.
struct EnteredRecord {
    let collected: CollectedFields
    /// The collected positions (one bit each) of sub-selected fields holding a reference or a non-empty list: what
    /// lies behind them is checked when the decode reaches it, or after the decode when it does not.
    let unchecked: UInt64
    /// Whether every selected field is stored at the position its collected field expects: members are then read
    /// by that position, without comparing keys again.
    let atHints: Bool
}

extension RecordReader {
    /// Enters `record` for a read that decodes while it checks: marks it used, collects its fields and checks the
    /// record's own fields (every selected field stored, leaves are leaves, a sub-selected field is null, a
    /// reference or a list), noting their write times. `nil` on a miss; the read then starts over with
    /// ``check(_:node:)``, which finds the first missing path in selection order.
    mutating func enterChecking(_ record: NormalizedRecord, node: SelectionNode) throws(GraphQLCacheError)
        -> EnteredRecord?
    {
        guard let collected = try enter(record, node: node) else {
            return nil
        }
        var unchecked: UInt64 = 0
        var atHints = true
        // Without fields of a time-to-live of their own (most reads), a record's unhinted write times are noted once,
        // as their minimum.
        let plain = separatedFields.isEmpty && ruledTypenames.isEmpty
        var oldest: CacheInstant?
        let fields = collected.fields
        // Read once: every access to the record's `fields` property copies it (a retain and a release per access).
        let stored = record.fields
        for offset in fields.indices {
            let field = fields[offset]
            if field.isTypename {
                guard record.typename != nil else {
                    recordMiss(at: field.responseKey, .missingField)
                    return nil
                }
                continue
            }
            let position: Int
            if plain {
                guard
                    let found = stored.position(
                        of: field.fixedStorageKey ?? context.storageKey(of: field), hint: field.storedPosition)
                else {
                    recordMiss(at: field.responseKey, .missingField)
                    return nil
                }
                position = found
                let writtenAt = stored.entries[found].field.writtenAt
                if let maxAge = stored.entries[found].field.upstreamMaxAge {
                    noteHinted(writtenAt, maxAge: maxAge)
                } else if oldest.map({ writtenAt < $0 }) ?? true {
                    oldest = writtenAt
                }
            } else {
                guard let found = lookUpPosition(field, in: record) else {
                    return nil
                }
                position = found
            }
            if position != field.storedPosition {
                atHints = false
            }
            switch stored.entries[position].field.value.shape {
            case .null, .emptyList:
                continue
            case .scalar:
                if field.child != nil {
                    recordMiss(at: field.responseKey, .unexpectedValue)
                    return nil
                }
            case .nested:
                guard let child = field.child else {
                    recordMiss(at: field.responseKey, .unexpectedValue)
                    return nil
                }
                if offset < UInt64.bitWidth {
                    unchecked |= 1 << UInt64(offset)
                } else {
                    guard try check(stored.entries[position].field.value, node: child) else {
                        return nil
                    }
                }
            }
        }
        if let oldest {
            note(oldest, record: record)
        }
        return EnteredRecord(collected: collected, unchecked: unchecked, atHints: atHints)
    }

    /// Checks what lies behind a sub-selected field of an entered record, for the parts a decode did not reach.
    mutating func checkBehind(_ field: CollectedField, of record: NormalizedRecord) throws(GraphQLCacheError) -> Bool {
        guard let child = field.child,
            let position = record.fields.position(
                of: field.fixedStorageKey ?? context.storageKey(of: field), hint: field.storedPosition)
        else {
            recordMiss(at: field.responseKey, .missingField)
            return false
        }
        return try check(record.fields.entries[position].field.value, node: child)
    }
}

/// A stored value's kind as far as a check on entering its record goes.
enum StoredShape {
    case null
    case scalar
    case emptyList
    /// A reference or a non-empty list: records (or `null`s) behind it.
    case nested
}

extension GraphQLRecordValue {
    var shape: StoredShape {
        switch self {
        case .scalar(.null): .null
        case .scalar: .scalar
        case .reference: .nested
        case .list(let elements): elements.isEmpty ? .emptyList : .nested
        }
    }
}
