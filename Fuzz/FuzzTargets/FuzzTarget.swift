/// The decoders of outside bytes, one fuzz target each. `ucache-fuzz <name>` runs one under libFuzzer (scripts/fuzz.sh)
/// or replays files through it; the regression tests replay the committed corpora and crash inputs through the same
/// entry, so a fuzz finding and its test exercise the same code.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A second-level REST value, read by a real hub through the `SecondLevelStore` seam and served.
    case secondLevelREST = "l2-rest"
    /// A second-level GraphQL result, read by a real hub through the `SecondLevelStore` seam and merged.
    case secondLevelGraphQL = "l2-graphql"
    /// A replication message (the plaintext JSON after opening), delivered through the `ReplicationTransport` seam.
    case replication = "replication"
    /// Bytes from a Redis server: hiredis's reader, the module's reply conversion, and what the replies mean.
    case redisReply = "redis-reply"
    /// Upstream response headers into the REST caching decisions and the store.
    case httpHeaders = "http-headers"
    /// GraphQL documents: the parser and the canonical printer.
    case graphQLDocument = "graphql-document"
    /// An upstream's GraphQL response body: the JSON parser and the response reader.
    case graphQLResponse = "graphql-response"
    /// A settings file.
    case settings = "settings"
    /// A JSON body into the caller's types: the fast decoder against Foundation's.
    case jsonDecoding = "json-decoding"

    /// Runs one input through the target. Returns the invariants it broke (empty when none); a decoder that traps
    /// crashes the process, which is what libFuzzer reports.
    public func run(_ input: [UInt8]) -> [String] {
        switch self {
        case .secondLevelREST: return SecondLevelFuzzHarness.rest.runREST(input)
        case .secondLevelGraphQL: return SecondLevelFuzzHarness.graphQL.runGraphQL(input)
        case .replication: return ReplicationFuzzHarness.shared.run(input)
        case .redisReply: return RedisReplyFuzzTarget.run(input)
        case .httpHeaders: return HTTPHeadersFuzzTarget.run(input)
        case .graphQLDocument: return GraphQLDocumentFuzzTarget.run(input)
        case .graphQLResponse: return GraphQLResponseFuzzTarget.run(input)
        case .settings: return SettingsFuzzTarget.run(input)
        case .jsonDecoding: return JSONDecodingFuzzTarget.run(input)
        }
    }

    /// Inputs made from real values (the codecs' encodings of real entries, real messages, documents, settings), for
    /// the seed corpus under `Fuzz/Corpus/<name>/`.
    public func seeds() -> [(name: String, bytes: [UInt8])] {
        switch self {
        case .secondLevelREST: return SecondLevelFuzzHarness.restSeeds()
        case .secondLevelGraphQL: return SecondLevelFuzzHarness.graphQLSeeds()
        case .replication: return ReplicationFuzzHarness.shared.seeds()
        case .redisReply: return RedisReplyFuzzTarget.seeds()
        case .httpHeaders: return HTTPHeadersFuzzTarget.seeds()
        case .graphQLDocument: return GraphQLDocumentFuzzTarget.seeds()
        case .graphQLResponse: return GraphQLResponseFuzzTarget.seeds()
        case .settings: return SettingsFuzzTarget.seeds()
        case .jsonDecoding: return JSONDecodingFuzzTarget.seeds()
        }
    }
}

/// Collects broken invariants of one run.
struct Violations {
    private(set) var list: [String] = []

    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { list.append(message()) }
    }
}
