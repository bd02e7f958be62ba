/// One entry of a response's `errors`: what the upstream reported, where in the document and the data.
///
/// Named so as not to clash with GraphQLSwift's `GraphQLError`, which a BFF may import beside this package.
import GraphQLLanguage

public struct GraphQLResponseError: Sendable, Hashable {
    /// One step of ``path``: a response key or a list index.
    public enum PathComponent: Sendable, Hashable, CustomStringConvertible {
        /// A response key (field name or alias).
        case key(String)
        /// A position in a list.
        case index(Int)

        /// The key, or the index in decimal.
        public var description: String {
            switch self {
            case .key(let key): key
            case .index(let index): String(index)
            }
        }
    }

    /// The upstream's message, for people. It may quote the request's input: keep it out of shared logs.
    public var message: String
    /// Where in the document the error is, when the upstream says.
    public var locations: [GraphQLSourceLocation]
    /// Where in `data` the error is (the field set to `null` because of it), when the upstream says.
    public var path: [PathComponent]
    /// The upstream's extra information (such as `code`), when any.
    public var extensions: GraphQLJSONObject?

    /// Creates an error entry.
    public init(
        message: String,
        locations: [GraphQLSourceLocation] = [],
        path: [PathComponent] = [],
        extensions: GraphQLJSONObject? = nil
    ) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
    }

    /// `extensions.code` (`NOT_FOUND`, `INSUFFICIENT_FUNDS`, …), the machine-readable kind most servers send.
    public var code: String? {
        extensions?["code"]?.stringValue
    }

    /// The path joined by dots (`account.balance`, `accounts.0.name`).
    public var dottedPath: String {
        path.map(\.description).joined(separator: ".")
    }

    /// Reads an entry of `errors`; `nil` when it is not an object with a string `message`.
    init?(json: GraphQLJSON) {
        guard let object = json.objectValue, let message = object["message"]?.stringValue else {
            return nil
        }
        self.message = message
        self.locations = (object["locations"]?.arrayValue ?? []).compactMap { location in
            guard let line = location["line"]?.int64Value, let column = location["column"]?.int64Value else {
                return nil
            }
            return GraphQLSourceLocation(line: Int(line), column: Int(column))
        }
        self.path = (object["path"]?.arrayValue ?? []).compactMap { component in
            if let key = component.stringValue {
                return .key(key)
            }
            return component.int64Value.map { .index(Int($0)) }
        }
        self.extensions = object["extensions"]?.objectValue
    }
}

extension GraphQLResponseError: CustomStringConvertible {
    /// The code and the path, never the message (it may quote personal input).
    public var description: String {
        var text = "GraphQLResponseError(code: \(code ?? "none")"
        if !path.isEmpty {
            text += ", path: \(dottedPath)"
        }
        return text + ")"
    }
}
