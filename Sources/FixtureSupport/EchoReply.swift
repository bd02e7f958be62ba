import Foundation

/// What the fixture's `/api/echo` route saw of a request.
public struct EchoReply: Sendable {
    public var method: String
    public var path: String
    public var query: [String: [String]]
    /// Lower-cased header names to every value received.
    public var headers: [String: [String]]
    public var body: String
    public var bodyLength: Int

    /// Decodes the echo JSON; scalar or list values are both accepted for headers and query items.
    public init(_ data: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FixtureError("echo reply is not a JSON object")
        }
        func lists(_ value: Any?) -> [String: [String]] {
            guard let dictionary = value as? [String: Any] else { return [:] }
            return dictionary.mapValues { value in
                if let list = value as? [Any] { return list.map { "\($0)" } }
                return ["\(value)"]
            }
        }
        method = object["method"] as? String ?? ""
        path = object["path"] as? String ?? ""
        query = lists(object["query"])
        headers = lists(object["headers"])
        body = object["body"] as? String ?? ""
        bodyLength = object["bodyLength"] as? Int ?? 0
    }

    /// The first value of a request header as the server received it.
    public func header(_ name: String) -> String? { headers[name.lowercased()]?.first }
}
