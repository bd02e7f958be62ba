import CacheCore
import Foundation
import GraphQLCache

/// The normalized store against Foundation's JSONDecoder on the fixture bank's bench query.
struct GraphQLSuite: BenchSuite {
    let help = """
        ucache-bench graphql [--iterations N] [--accounts N] [--transactions N] [--only ROW] [--json]

        Data: the bench query (below) answered for --accounts accounts (default 100) with --transactions
        transactions each (default 20): 2,100 objects, every one with `__typename` and `id`. The response
        bytes are generated here, deterministically (no server); about 370 KB.
          query BenchAccounts { accounts { __typename id accountToken name type balance availableBalance
            currency transactions(first: 20) { __typename id accountId amount description date status } } }
        Store: GraphQLNormalizedStore with TypenameIDKeyProvider (records Account:<id>, Transaction:<id>).

        Measured, each --iterations times (default 200) after 20 untimed warm-ups, one thread, CLOCK_MONOTONIC:
        1. JSONDecoder: decode the response bytes into Decodable structs ({data: {accounts: [Account]}}),
           the baseline; beside it the same by the JSON tape REST bodies decode through (JSONFastDecoder).
        2. write (new scope): parse the bytes into GraphQLJSON and write `data` into a fresh store (creating
           2,101 records); the store is created and freed outside the timing.
        3. write (refresh): the same into a store already holding the response (merge, nothing changes).
        4. read (Decodable): read the operation from the store straight into the same structs (the
           selection checked over the records, then decoded from them; no JSON in between).
        5. read (GraphQLJSON): read the operation into a GraphQLJSONObject tree, for comparison.
        6. parse only: GraphQLJSON(parsing:) of the bytes (part of 2 and 3).
        7. client hit (2,100 entities): GraphQLClient.fetch(query:) with the default cache-first policy,
           answered from the cache, decoded into the same structs; the bench query runs once against the
           fixture server (user token-bench: 100 accounts × 20 transactions) to fill the cache, then
           --client-iterations (default 200) hits are timed.
        8. client hit (one account): the same for `account(id: "b001")` with seven fields, 20,000 hits.
        9. client hit (round-robin ids): the one-account query with --round-robin-ids distinct ids (default
           100,000, one per user as a BFF sees them), all written into the client's store first, then 20,000
           hits in turn over the ids (each hit another id than the last; no network). Its p50 is meant to stay
           within 1.2× of row 8's.
        --only decoder|write|refresh|read|read-json|parse|client|client-one|client-rr measures that row alone
        (for profiling); rows 7 and 8 start the fixture server (or use UCACHE_FIXTURE_URL).
        Reported: p50 and p99 in ms, and each row's p50 over JSONDecoder's p50 (targets: read ≤ 1,
        write ≤ 2). For scale, Apollo iOS 1.x's normalized cache reads this in 49-78 ms and writes it in
        109-380 ms on comparable machines.
        """

    func run(options: BenchOptions) async throws -> BenchReport {
        let iterations = max(1, options.int("iterations", default: 200))
        let accounts = options.int("accounts", default: 100)
        let transactions = options.int("transactions", default: 20)
        let bytes = BenchResponse.generate(accounts: accounts, transactions: transactions)
        let operation = try GraphQLParser.parse(BenchResponse.query).prepare(operationName: nil)
        let scope = CacheScope.session("bench")

        let only = options.string("only")
        func wanted(_ name: String) -> Bool { only == nil || only == name }
        let empty = Samples()
        let decoder = JSONDecoder()
        let baseline =
            try !wanted("decoder")
            ? empty
            : measure(iterations) {
                let decoded = try decoder.decode(BenchResponse.self, from: bytes)
                guard decoded.data.accounts.count == accounts else { throw BenchError("JSONDecoder lost accounts") }
            }
        let tape =
            try !wanted("tape")
            ? empty
            : measure(iterations) {
                let decoded = try JSONFastDecoder.decode(BenchResponse.self, from: bytes, as: decoder)
                guard decoded.data.accounts.count == accounts else { throw BenchError("the JSON tape lost accounts") }
            }
        let parse = try !wanted("parse") ? empty : measure(iterations) { _ = try GraphQLJSON(parsing: bytes) }
        let freshWrite =
            try !wanted("write")
            ? empty : measureFreshWrite(iterations, bytes: bytes, operation: operation, scope: scope)

        let store = try Self.makeStore()
        try Self.write(bytes, operation: operation, into: store, scope: scope)
        let refresh =
            try !wanted("refresh")
            ? empty
            : measure(iterations) {
                try Self.write(bytes, operation: operation, into: store, scope: scope)
            }
        let read =
            try !wanted("read")
            ? empty
            : measure(iterations) {
                guard let data = try store.read(BenchData.self, operation: operation, in: scope).value,
                    data.accounts.count == accounts, data.accounts[0].transactions.count == transactions
                else { throw BenchError("the read missed") }
            }
        let readJSON =
            try !wanted("read-json")
            ? empty
            : measure(iterations) {
                guard try store.read(operation, in: scope).value != nil else { throw BenchError("the read missed") }
            }
        try crossCheck(store: store, operation: operation, scope: scope, bytes: bytes)
        let clientIterations = max(1, options.int("client-iterations", default: 200))
        let (clientHit, clientOne) = try await ClientHitBench.measure(
            all: wanted("client") ? clientIterations : 0,
            one: wanted("client-one") ? clientIterations * 100 : 0
        )
        let clientRoundRobin = try await ClientHitBench.measureRoundRobin(
            wanted("client-rr") ? clientIterations * 100 : 0,
            ids: options.int("round-robin-ids", default: 100_000)
        )

        let base = max(baseline.percentile(0.5), 1)
        func row(_ name: String, _ samples: Samples) -> BenchReport.Row {
            BenchReport.Row(
                name: name,
                values: [
                    "p50 ms": samples.percentile(0.5) / 1e6, "p99 ms": samples.percentile(0.99) / 1e6,
                    "÷ JSONDecoder": samples.percentile(0.5) / base,
                ])
        }
        return BenchReport(
            suite: "graphql",
            machine: BenchReport.machineDescription,
            columns: ["p50 ms", "p99 ms", "÷ JSONDecoder"],
            rows: [
                row("JSONDecoder", baseline), row("JSON tape (REST's decoder, same structs)", tape),
                row("write (new scope)", freshWrite), row("write (refresh)", refresh),
                row("read (Decodable)", read), row("read (GraphQLJSON)", readJSON), row("parse only", parse),
                row("client hit (2,100 entities)", clientHit), row("client hit (one account)", clientOne),
                row("client hit (round-robin ids)", clientRoundRobin),
            ],
            notes: [
                "\(accounts) accounts × \(transactions) transactions, \(bytes.count) bytes, "
                    + "\(store.recordCount(in: scope)) records, \(store.byteCount(in: scope)) bytes charged",
                "targets: read ÷ JSONDecoder ≤ 1, write ÷ JSONDecoder ≤ 2; \(iterations) iterations",
                "client hits in µs: 2,100 entities p50 \(micros(clientHit, 0.5)) p99 \(micros(clientHit, 0.99)); "
                    + "one account p50 \(micros(clientOne, 0.5)) p99 \(micros(clientOne, 0.99)); "
                    + "round-robin ids p50 \(micros(clientRoundRobin, 0.5)) p99 \(micros(clientRoundRobin, 0.99))",
                Self.persistedQuerySavings(operation),
            ]
        )
    }

    /// The bytes automatic persisted queries save per request of the bench query: its POST body with the document
    /// against the body with the document's SHA-256 in `extensions.persistedQuery` instead.
    static func persistedQuerySavings(_ operation: GraphQLPreparedOperation) -> String {
        let text = operation.canonicalText
        let hash = String(repeating: "0", count: 64)  // only the length counts here
        let name: GraphQLJSON = .string(operation.operation.name ?? "")
        let withDocument = GraphQLJSON.object(["query": .string(text), "operationName": name, "variables": [:]])
        let byHash = GraphQLJSON.object([
            "operationName": name, "variables": [:],
            "extensions": ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]],
        ])
        let full = withDocument.jsonBytes().count
        let hashed = byHash.jsonBytes().count
        return "APQ: the bench query's POST body is \(full) bytes with its document, \(hashed) bytes by hash "
            + "(\(full - hashed) bytes saved per request once the upstream knows the hash)"
    }

    private func micros(_ samples: Samples, _ fraction: Double) -> String {
        String(format: "%.1f", samples.percentile(fraction) / 1e3)
    }

    static func makeStore() throws -> GraphQLNormalizedStore {
        try GraphQLNormalizedStore(cacheConfiguration: .typenameAndID())
    }

    static func write(
        _ bytes: Data,
        operation: GraphQLPreparedOperation,
        into store: GraphQLNormalizedStore,
        scope: CacheScope
    ) throws {
        guard let data = try GraphQLJSON(parsing: bytes)["data"]?.objectValue else { throw BenchError("no data") }
        guard case .written = try store.write(operation, data: data, in: scope) else {
            throw BenchError("the write was refused")
        }
    }

    private func measureFreshWrite(
        _ iterations: Int,
        bytes: Data,
        operation: GraphQLPreparedOperation,
        scope: CacheScope
    ) throws -> Samples {
        var samples = Samples()
        for iteration in 0..<(iterations + 20) {
            var store: GraphQLNormalizedStore? = try Self.makeStore()
            let begin = monotonicNanoseconds()
            try Self.write(bytes, operation: operation, into: store!, scope: scope)
            let elapsed = monotonicNanoseconds() - begin
            store = nil
            if iteration >= 20 { samples.append(elapsed) }
        }
        return samples
    }

    private func measure(_ iterations: Int, _ body: () throws -> Void) throws -> Samples {
        for _ in 0..<20 { try body() }
        var samples = Samples()
        samples.reserve(iterations)
        for _ in 0..<iterations {
            let begin = monotonicNanoseconds()
            try body()
            samples.append(monotonicNanoseconds() - begin)
        }
        return samples
    }

    /// The store must give back exactly what JSONDecoder reads from the bytes.
    private func crossCheck(
        store: GraphQLNormalizedStore,
        operation: GraphQLPreparedOperation,
        scope: CacheScope,
        bytes: Data
    ) throws {
        let expected = try JSONDecoder().decode(BenchResponse.self, from: bytes).data
        guard try store.read(BenchData.self, operation: operation, in: scope).value == expected else {
            throw BenchError("the store's read differs from JSONDecoder's")
        }
    }
}

/// The bench query's response, as the caller's types.
struct BenchResponse: Decodable, Equatable {
    var data: BenchData

    static let query = """
        query BenchAccounts {
          accounts {
            __typename id accountToken name type balance availableBalance currency
            transactions(first: 20) { __typename id accountId amount description date status }
          }
        }
        """

    /// Deterministic response bytes shaped like the fixture bank's answer.
    static func generate(accounts: Int, transactions: Int) -> Data {
        let types = ["CHECKING", "SAVINGS", "CREDIT"]
        var text = #"{"data":{"accounts":["#
        for account in 0..<accounts {
            let id = String(format: "b%03d", account + 1)
            let balance = Double((account * 7_919) % 1_000_000) / 100
            if account > 0 { text += "," }
            text += #"{"__typename":"Account","id":"\#(id)","accountToken":"atok-\#(id)","#
            text += #""name":"Bench Account \#(account + 1)","type":"\#(types[account % 3])","#
            text += #""balance":\#(balance),"availableBalance":\#(balance - 50),"currency":"AUD","transactions":["#
            for index in 0..<transactions {
                let amount = Double(((account + 1) * (index + 3) * 104_729) % 50_000 - 25_000) / 100
                let day = String(format: "%02d", 30 - index % 28)
                if index > 0 { text += "," }
                text += #"{"__typename":"Transaction","id":"tx-\#(id)-\#(index + 1)","accountId":"\#(id)","#
                text += #""amount":\#(amount),"description":"Card purchase \#(index + 1) at Merchant \#(account)","#
                text += #""date":"2024-06-\#(day)T10:00:00Z","status":"\#(index == 0 ? "PENDING" : "POSTED")"}"#
            }
            text += "]}"
        }
        text += "]}}"
        return Data(text.utf8)
    }
}

struct BenchData: Decodable, Equatable, Sendable {
    var accounts: [Account]

    struct Account: Decodable, Equatable, Sendable {
        var id: String
        var accountToken: String
        var name: String
        var type: AccountType
        var balance: Double
        var availableBalance: Double
        var currency: String
        var transactions: [Transaction]
    }

    enum AccountType: String, Decodable, Equatable, Sendable {
        case checking = "CHECKING"
        case savings = "SAVINGS"
        case credit = "CREDIT"
    }

    struct Transaction: Decodable, Equatable, Sendable {
        var id: String
        var accountId: String
        var amount: Double
        var description: String
        var date: String
        var status: String
    }
}
