/// The records of one table by key.
///
/// A session's table usually holds a handful of records. Up to ``arrayLimit`` they sit in an array and a lookup
/// compares keys (as fast as hashing one at that size), so the scope pays for neither a dictionary's header nor its
/// empty buckets (about 100 bytes less per scope). Past that, a dictionary; back to an array at half the limit, so a
/// table hovering around it does not convert on every write.
struct RecordMap: Sequence {
    static let arrayLimit = 8

    /// Whether the records sit in a dictionary (past ``arrayLimit``, until they fall to half of it).
    var isHashed: Bool {
        if case .many = storage { return true }
        return false
    }

    private enum Storage {
        case few([NormalizedRecord])
        case many([String: NormalizedRecord])
    }

    private var storage = Storage.few([])

    init() {}

    var count: Int {
        switch storage {
        case .few(let records): records.count
        case .many(let records): records.count
        }
    }

    var isEmpty: Bool {
        count == 0
    }

    var underestimatedCount: Int {
        count
    }

    subscript(key: String) -> NormalizedRecord? {
        switch storage {
        case .few(let records):
            for record in records where record.key == key {
                return record
            }
            return nil
        case .many(let records):
            return records[key]
        }
    }

    /// Adds `record`, whose key the map does not hold.
    mutating func insert(_ record: NormalizedRecord) {
        switch storage {
        case .few(var records):
            storage = .few([])  // so `records` is the array's only reference: appended in place
            if records.count < Self.arrayLimit {
                records.append(record)
                storage = .few(records)
            } else {
                var dictionary = [String: NormalizedRecord](minimumCapacity: records.count + 1)
                for held in records {
                    dictionary[held.key] = held
                }
                dictionary[record.key] = record
                storage = .many(dictionary)
            }
        case .many(var records):
            storage = .few([])
            records[record.key] = record
            storage = .many(records)
        }
    }

    /// Removes and returns the record under `key`, if any.
    mutating func removeValue(forKey key: String) -> NormalizedRecord? {
        switch storage {
        case .few(var records):
            guard let index = records.firstIndex(where: { $0.key == key }) else {
                return nil
            }
            storage = .few([])
            let removed = records.remove(at: index)
            storage = .few(records)
            return removed
        case .many(var records):
            storage = .few([])
            let removed = records.removeValue(forKey: key)
            storage = records.count <= Self.arrayLimit / 2 ? .few(Array(records.values)) : .many(records)
            return removed
        }
    }

    func makeIterator() -> Iterator {
        switch storage {
        case .few(let records): Iterator(position: .few(records.makeIterator()))
        case .many(let records): Iterator(position: .many(records.values.makeIterator()))
        }
    }

    struct Iterator: IteratorProtocol {
        fileprivate enum Position {
            case few(IndexingIterator<[NormalizedRecord]>)
            case many(Dictionary<String, NormalizedRecord>.Values.Iterator)
        }

        fileprivate var position: Position

        mutating func next() -> NormalizedRecord? {
            switch position {
            case .few(var iterator):
                let record = iterator.next()
                position = .few(iterator)
                return record
            case .many(var iterator):
                let record = iterator.next()
                position = .many(iterator)
                return record
            }
        }
    }
}
