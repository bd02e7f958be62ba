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
    private let pairs = Mutex<[String: String]>([:])  // both directions: id -> token and token -> id

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Every identifier of the account `identifier` names, itself included.
    public func identifiers(of identifier: String) -> Set<String> {
        var result: Set<String> = [identifier]
        if let other = pairs.withLock({ $0[identifier] }) { result.insert(other) }
        if let resolve = configuration.resolve { result.formUnion(resolve(identifier)) }
        return result
    }

    /// Records that `id` and `token` name the same account.
    public func learn(id: String, token: String) {
        guard !id.isEmpty, !token.isEmpty, id != token else { return }
        let limit = configuration.maximumLearnedPairs * 2
        pairs.withLock { pairs in
            guard pairs[id] == nil, pairs.count < limit else { return }
            pairs[id] = token
            pairs[token] = id
        }
    }

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
    public var learnedPairCount: Int { pairs.withLock { $0.count / 2 } }
}
