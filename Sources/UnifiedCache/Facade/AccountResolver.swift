import Foundation
import Synchronization

/// Connects an account's id and its token, so a clear by either reaches every entry of the account in REST and
/// GraphQL (REST entries may be recorded under the token, GraphQL records under the id).
///
/// Pairs come from a configured resolver and are learned from upstream answers that carry both (configured
/// field names). One resolver per session: what it learns is that user's accounts and goes when the session ends.
public final class AccountResolver: Sendable {
    /// How pairs are found.
    public struct Configuration: Sendable {
        /// The field holding an account's id in upstream JSON. Default: `id`.
        public var idField: String
        /// The field holding an account's token in upstream JSON. Default: `accountToken`.
        public var tokenField: String
        /// A resolver of your own: given an id or a token, the other identifiers of the same account.
        /// Default: none.
        public var resolve: (@Sendable (String) -> Set<String>)?
        /// The most pairs remembered per session (learning stops beyond it). Default: 1,000.
        public var maximumLearnedPairs: Int

        public init(
            idField: String = "id",
            tokenField: String = "accountToken",
            resolve: (@Sendable (String) -> Set<String>)? = nil,
            maximumLearnedPairs: Int = 1_000
        ) {
            self.idField = idField
            self.tokenField = tokenField
            self.resolve = resolve
            self.maximumLearnedPairs = maximumLearnedPairs
        }
    }

    public let configuration: Configuration
    /// The pairs both ways (id -> token and token -> id) and what they are charged to the budget.
    private let state = Mutex(PairTable())
    /// Charged for every pair learned, so a session that learns many accounts costs the budget what it costs the
    /// process.
    private let budget: MemoryBudget?

    private struct PairTable: Sendable {
        var pairs: [String: String] = [:]
        var chargedBytes = 0
    }

    /// - Parameters:
    ///   - configuration: how pairs are found.
    ///   - budget: charged for each learned pair while it is kept (the hub passes its process budget).
    public init(configuration: Configuration = Configuration(), budget: MemoryBudget? = nil) {
        self.configuration = configuration
        self.budget = budget
    }

    deinit {
        let charged = state.withLock { $0.chargedBytes }
        if charged > 0 { budget?.release(charged) }
    }

    /// Every identifier of the account `identifier` names, itself included.
    public func identifiers(of identifier: String) -> Set<String> {
        var result: Set<String> = [identifier]
        if let other = state.withLock({ $0.pairs[identifier] }) { result.insert(other) }
        if let resolve = configuration.resolve { result.formUnion(resolve(identifier)) }
        return result
    }

    /// Records that `id` and `token` name the same account.
    public func learn(id: String, token: String) {
        guard !id.isEmpty, !token.isEmpty, id != token else { return }
        let limit = configuration.maximumLearnedPairs * 2
        let bytes = Self.chargedBytes(id: id, token: token)
        let learned = state.withLock { table -> Bool in
            guard table.pairs[id] == nil, table.pairs.count < limit else { return false }
            table.pairs[id] = token
            table.pairs[token] = id
            table.chargedBytes += bytes
            return true
        }
        guard learned, let budget else { return }
        budget.chargeAndReclaim(bytes)
    }

    /// Forgets every pair and releases what they were charged (the session ended).
    func forgetAll() {
        let released = state.withLock { table -> Int in
            let charged = table.chargedBytes
            table = PairTable()
            return charged
        }
        if released > 0 { budget?.release(released) }
    }

    /// What a learned pair is charged: its two slots in the table (each a key and a value, at the table's usual
    /// spare capacity) and the text of the id and the token where too long to be stored inline (both directions
    /// share each string's storage).
    static func chargedBytes(id: String, token: String) -> Int {
        2 * 48 + MemoryBudget.heapBytes(of: id) + MemoryBudget.heapBytes(of: token)
    }

    /// What the learned pairs are charged to the budget now (0 without one).
    public var chargedBytes: Int { state.withLock { $0.chargedBytes } }

    /// Learns every pair found in a JSON document (objects that carry both configured fields, at any depth).
    public func learn(fromJSON data: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: data) else { return }
        learn(fromJSONObject: object)
    }

    private func learn(fromJSONObject value: Any) {
        if let dictionary = value as? [String: Any] {
            if let id = Self.string(dictionary[configuration.idField]),
                let token = Self.string(dictionary[configuration.tokenField])
            {
                learn(id: id, token: token)
            }
            for nested in dictionary.values { learn(fromJSONObject: nested) }
        } else if let array = value as? [Any] {
            for element in array { learn(fromJSONObject: element) }
        }
    }

    private static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }

    /// How many accounts are known by both identifiers.
    public var learnedPairCount: Int { state.withLock { $0.pairs.count / 2 } }
}
