import CurlHTTP
import GraphQLLanguage

/// How one request carries its document to the upstream under automatic persisted queries (APQ).
enum DocumentPayload {
    /// The whole document, no persisted-query extension: APQ off, or the upstream does not support it.
    case document
    /// The document's SHA-256 alone (`extensions.persistedQuery`): the first try.
    case hashOnly
    /// The document and its hash, after the upstream answered `PersistedQueryNotFound`: it registers the hash.
    case documentAndHash
}

/// What an upstream answer says about persisted queries.
enum PersistedQueryVerdict {
    /// A normal answer (or an error that is not about persisted queries).
    case answered
    /// `PersistedQueryNotFound`: send the document with its hash.
    case notFound
    /// `PersistedQueryNotSupported`: the upstream has no APQ; send documents from now on.
    case notSupported

    /// Reads the verdict from an answer's errors, by `extensions.code` (Apollo Server) or, for servers that only
    /// set the message, by the message.
    init(errors: [GraphQLResponseError]) {
        self = .answered
        for error in errors {
            if error.code == "PERSISTED_QUERY_NOT_FOUND" || error.message == "PersistedQueryNotFound" {
                self = .notFound
                return
            }
            if error.code == "PERSISTED_QUERY_NOT_SUPPORTED" || error.message == "PersistedQueryNotSupported" {
                self = .notSupported
                return
            }
        }
    }

    /// The verdict of a parsed answer, or of the error its parse threw (servers that answer the persisted-query
    /// errors with a 4xx status).
    init(_ outcome: Result<GraphQLHTTPResponse, GraphQLCacheError>) {
        switch outcome {
        case .success(let parsed):
            // An answer with data executed: whatever its errors say, it is the answer.
            self = parsed.data == nil ? Self(errors: parsed.errors) : .answered
        case .failure(let error):
            let response = error.underlying as? GraphQLErrorResponse
            self = response.map { Self(errors: $0.errors) } ?? .answered
        }
    }
}

extension GraphQLJSONObject {
    /// `{"persistedQuery": {"version": 1, "sha256Hash": …}}`: the extension naming a document by its hash.
    static func persistedQuery(sha256 hex: String) -> GraphQLJSONObject {
        ["persistedQuery": .object(["version": 1, "sha256Hash": .string(hex)])]
    }
}
