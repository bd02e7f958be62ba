import CacheCore
import GraphQLLanguage

/// Turns a response's `data` into record drafts by walking the operation's selection, without touching the
/// store: a response that does not fit throws before anything is merged, so a bad response leaves the store as
/// it was.
struct ResponseNormalizer {
    let context: SelectionContext
    let now: CacheInstant
    let sizing: RecordSizing
    private(set) var drafts: [String: RecordDraft] = [:]
    private var path = ResponsePath(reserving: 16)
    private let needsKeys: Bool
    /// The upstream's `maxAge` hints by path, `nil` when the answer carried none (the walk then skips them).
    private let hints: CacheHintTree?
    private let headerMaxAge: Double?

    /// What the drafts would be charged as new records: the write's size (its events report it).
    var draftBytes: Int {
        drafts.values.reduce(0) { $0 + $1.bytes }
    }

    /// - Parameter upstream: the upstream's statement about the answer: every field written gets the smallest
    ///   `maxAge` on its path (its own hint, its ancestors', the header's) as ``GraphQLRecordField/upstreamMaxAge``.
    init(
        context: SelectionContext, now: CacheInstant, sizing: RecordSizing,
        upstream: UpstreamCachePolicy = .none
    ) {
        self.context = context
        self.now = now
        self.sizing = sizing
        self.needsKeys = context.configuration.hasCacheKeyProviders
        self.hints = upstream.boundsFreshness ? upstream.hints : nil
        self.headerMaxAge = upstream.headerMaxAge
    }

    /// Normalizes the root object into the root record `rootKey`.
    mutating func normalize(
        data: GraphQLJSONObject,
        rootKey: String,
        rootTypename: String,
        node: SelectionNode
    ) throws(GraphQLCacheError) {
        let cursor = hints?.root(headerMaxAge: headerMaxAge) ?? CacheHintTree.Cursor(node: nil, maxAge: nil)
        try normalizeObject(data, key: rootKey, node: node, defaultTypename: rootTypename, hint: cursor)
    }

    /// The hint cursor one step down (unchanged when the answer has no hints).
    private func entering(_ step: CacheHintTree.Step, from cursor: CacheHintTree.Cursor) -> CacheHintTree.Cursor {
        guard let hints, cursor.node != nil else {
            return cursor
        }
        return hints.entering(step, from: cursor)
    }

    private mutating func normalizeObject(
        _ object: GraphQLJSONObject,
        key: String,
        node: SelectionNode,
        defaultTypename: String?,
        hint: CacheHintTree.Cursor
    ) throws(GraphQLCacheError) {
        let typename = try typename(of: object, node: node) ?? defaultTypename
        let collected: CollectedFields
        do {
            collected = try node.fields(for: typename, in: context)
        } catch {
            throw collectionError(error)
        }
        var draft = RecordDraft(
            typename: typename,
            fields: RecordFields(minimumCapacity: collected.fields.count),
            bytes: sizing.emptyRecordBytes(key: key)
        )
        for (position, field) in collected.fields.enumerated() {
            guard let value = object.value(forKey: field.responseKey, hint: position) else {
                throw GraphQLCacheError(
                    code: .responseMismatch,
                    message: "The response has no '\(field.responseKey)', which the operation selects.",
                    path: path.dotted(appending: field.responseKey)
                )
            }
            if field.isTypename {
                continue
            }
            let storageKey = context.storageKey(of: field)
            let fieldHint = entering(.key(field.responseKey), from: hint)
            let stored: GraphQLRecordValue
            if let child = field.child {
                path.push(.key(field.responseKey))
                stored = try normalizeComposite(
                    value, parentKey: key, storageKey: storageKey, node: child, hint: fieldHint)
                path.pop()
            } else {
                stored = .scalar(value)
            }
            let written = GraphQLRecordField(value: stored, writtenAt: now, upstreamMaxAge: fieldHint.maxAge)
            if collected.hasRepeatedStorageKeys {
                if let replaced = draft.fields.update(written, forKey: storageKey, hint: -1) {
                    draft.bytes -= sizing.fieldBytes(storageKey, replaced.value)
                }
            } else {
                draft.fields.append(storageKey, written)
            }
            draft.bytes += sizing.fieldBytes(storageKey, stored)
        }
        drafts[key, default: RecordDraft()].absorb(draft, key: key, sizing: sizing)
    }

    /// An object-typed field's value: `null`, an object (stored as a record, referenced here) or a list.
    private mutating func normalizeComposite(
        _ value: GraphQLJSON,
        parentKey: String,
        storageKey: String,
        node: SelectionNode,
        hint: CacheHintTree.Cursor
    ) throws(GraphQLCacheError) -> GraphQLRecordValue {
        switch value {
        case .null:
            return .scalar(.null)
        case .object(let object):
            let key = try recordKey(of: object, node: node, parentKey: parentKey, storageKey: storageKey)
            try normalizeObject(object, key: key, node: node, defaultTypename: nil, hint: hint)
            return .reference(key)
        case .array(let elements):
            var normalized: [GraphQLRecordValue] = []
            normalized.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                path.push(.index(index))
                normalized.append(
                    try normalizeComposite(
                        element, parentKey: parentKey, storageKey: storageKey, node: node,
                        hint: entering(.index(index), from: hint))
                )
                path.pop()
            }
            return .list(normalized)
        case .bool, .int, .double, .string:
            throw GraphQLCacheError(
                code: .responseMismatch,
                message: "The operation selects fields of this value, but the response has \(value.kindDescription).",
                path: path.dotted
            )
        }
    }

    /// The registered providers' key, or the object's path below its parent record (`QUERY_ROOT.accounts.0`).
    private func recordKey(
        of object: GraphQLJSONObject,
        node: SelectionNode,
        parentKey: String,
        storageKey: String
    ) throws(GraphQLCacheError) -> String {
        if needsKeys {
            guard let typename = try typename(of: object, node: node) else {
                throw GraphQLCacheError(
                    code: .missingTypename,
                    message: "The object has no __typename, which the cache key providers need; select it.",
                    path: path.dotted
                )
            }
            if let key = context.configuration.cacheKey(forTypename: typename, object: object) {
                guard !key.isEmpty, !GraphQLRecord.isRootKey(key) else {
                    throw GraphQLCacheError(
                        code: .invalidCacheKey,
                        message: "A key provider returned an empty or root key for a '\(typename)'.",
                        path: path.dotted
                    )
                }
                return key
            }
        }
        var key = parentKey + "." + storageKey
        for component in path.trailingIndices {
            if case .index(let index) = component {
                key += "." + String(index)
            }
        }
        return key
    }

    /// The object's `__typename` (or an alias of it the selection uses); `nil` when the response has none.
    private func typename(of object: GraphQLJSONObject, node: SelectionNode) throws(GraphQLCacheError) -> String? {
        for key in node.typenameResponseKeys {
            switch object.value(forKey: key, hint: 0) {
            case nil:
                continue
            case .string(let typename):
                return typename
            case let other?:
                throw GraphQLCacheError(
                    code: .responseMismatch,
                    message: "__typename is \(other.kindDescription), not a string.",
                    path: path.dotted(appending: key)
                )
            }
        }
        return nil
    }

    private func collectionError(_ failure: CollectionFailure) -> GraphQLCacheError {
        switch failure {
        case .needsTypename(let condition):
            GraphQLCacheError(
                code: .missingTypename,
                message: "The object has no __typename, which the fragment on '\(condition)' needs; select it.",
                path: path.dotted
            )
        case .invalidVariables(let message):
            GraphQLCacheError(code: .invalidVariables, message: message + ".")
        }
    }
}

extension GraphQLJSONObject {
    /// The member `key`, looking at position `hint` first: responses list fields in the order the operation
    /// selects them, so the guess is nearly always right and saves the scan.
    func value(forKey key: String, hint: Int) -> GraphQLJSON? {
        if hint < keys.count, keys[hint] == key {
            return values[hint]
        }
        return position(of: key).map { values[$0] }
    }
}
