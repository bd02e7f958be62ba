import Foundation
import RESTCache

/// Ties REST entries and GraphQL records that describe the same entity (`Account:101`), so a change through one
/// protocol invalidates the other's copy.
///
/// - REST reads name the entities their answers describe (``reads``); the facade records them on the entry, and a
///   GraphQL mutation that changes one of those records removes the REST entries that depend on it.
/// - REST mutations name what they change in the normalized store (``mutations``): fields evicted from a record, or
///   the record removed; REST entries depending on the same entity go too.
public struct EntityLinks: Sendable {
    /// Which entities the answer of a GET route describes.
    public struct Read: Sendable {
        public var pattern: PathPattern
        public var typename: String
        /// Paths to the ids in the answer: `id`, `account.id`, `[].id` (every element), `items[].accountId`.
        public var idPaths: [String]

        public init(_ pattern: PathPattern, typename: String, idPaths: [String]) {
            self.pattern = pattern
            self.typename = typename
            self.idPaths = idPaths
        }
    }

    /// What a successful REST mutation changes in the normalized store.
    public struct Mutation: Sendable {
        public var pattern: PathPattern
        /// The record(s) changed: an entity found in the answer or the path, or a fixed record key (a root).
        public var target: Target
        /// The fields evicted from the record; nil removes the whole record.
        public var evictedFields: [String]?

        public enum Target: Sendable {
            /// `typename:id` for every id found at `idPaths` in the answer, or in the path segment at
            /// `pathSegment` (`DELETE /api/cards/7`: segment 3 is `7`).
            case entity(typename: String, idPaths: [String] = [], pathSegment: Int? = nil)
            /// A record by key, such as `QUERY_ROOT`.
            case record(String)
        }

        public init(_ pattern: PathPattern, target: Target, evictedFields: [String]? = nil) {
            self.pattern = pattern
            self.target = target
            self.evictedFields = evictedFields
        }
    }

    public var reads: [Read]
    public var mutations: [Mutation]

    public init(reads: [Read] = [], mutations: [Mutation] = []) {
        self.reads = reads
        self.mutations = mutations
    }

    /// The entity keys a GET answer of `path` describes.
    func entityKeys(readingPath path: String, body: Data) -> Set<String> {
        let rules = reads.filter { $0.pattern.matches(method: "GET", path: path) }
        guard !rules.isEmpty, let json = try? JSONSerialization.jsonObject(with: body) else { return [] }
        var keys: Set<String> = []
        for rule in rules {
            for idPath in rule.idPaths {
                for id in JSONIDPath(idPath).values(in: json) { keys.insert("\(rule.typename):\(id)") }
            }
        }
        return keys
    }

    /// The records a successful mutation changes, with the fields to evict (nil: the whole record).
    func changes(method: String, path: String, body: Data) -> [(recordKey: String, fields: [String]?)] {
        let rules = mutations.filter { $0.pattern.matches(method: method, path: path) }
        guard !rules.isEmpty else { return [] }
        let json = body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: body)
        var result: [(String, [String]?)] = []
        for rule in rules {
            switch rule.target {
            case .record(let key):
                result.append((key, rule.evictedFields))
            case .entity(let typename, let idPaths, let pathSegment):
                var ids: [String] = []
                if let json { ids += idPaths.flatMap { JSONIDPath($0).values(in: json) } }
                if let index = pathSegment {
                    let segments = path.split(separator: "/", omittingEmptySubsequences: false)
                    if segments.indices.contains(index) { ids.append(String(segments[index])) }
                }
                for id in Set(ids).sorted() { result.append(("\(typename):\(id)", rule.evictedFields)) }
            }
        }
        return result
    }
}

/// A small path into decoded JSON: `a.b`, `[]` for every element of an array, `items[]` for every element of a
/// field holding an array. Ids may be strings or numbers.
struct JSONIDPath {
    private enum Step {
        case field(String)
        case elements
    }
    private let steps: [Step]

    init(_ text: String) {
        var steps: [Step] = []
        for token in text.split(separator: ".") {
            if token == "[]" {
                steps.append(.elements)
            } else if token.hasSuffix("[]") {
                steps.append(.field(String(token.dropLast(2))))
                steps.append(.elements)
            } else {
                steps.append(.field(String(token)))
            }
        }
        self.steps = steps
    }

    func values(in json: Any) -> [String] {
        var current: [Any] = [json]
        for step in steps {
            switch step {
            case .field(let name):
                current = current.compactMap { ($0 as? [String: Any])?[name] }
            case .elements:
                current = current.flatMap { ($0 as? [Any]) ?? [] }
            }
        }
        return current.compactMap { value in
            switch value {
            case let text as String: return text
            case let number as NSNumber: return number.stringValue
            default: return nil
            }
        }
    }
}
