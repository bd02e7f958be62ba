import CacheCore
import Synchronization
import Testing

@Suite("Door instrumentation: the upstream call, the second-level read and the served answer every door reports")
struct CacheDoorInstrumentationTests {
    struct Refused: Error, Equatable {
        let code: String
    }

    @Test("without an instrumentation, an upstream call runs alone and builds no attribute")
    func plainCall() async throws {
        var built = false
        let answer = try await CacheDoorInstrumentation.upstreamCall(
            nil, .restFetch,
            attributes: {
                built = true
                return CacheOperationAttributes()
            },
            status: { (status: Int) in status }, failure: { (error: Refused) in error.code },
            call: { () async throws(Refused) -> Int in 200 }
        )
        #expect(answer == 200)
        #expect(!built)
    }

    @Test("an upstream call starts, runs current for the caller and ends with the response's status")
    func measuredCall() async throws {
        let heard = AttributeRecorder()
        let answer = try await CacheDoorInstrumentation.upstreamCall(
            heard, .graphQLFetch,
            attributes: { CacheOperationAttributes(part: "graphql", method: "POST", tier: "upstream") },
            status: { (status: Int) in status }, failure: { (error: Refused) in error.code },
            call: { () async throws(Refused) -> Int in
                heard.log.withLock { $0.append("call") }
                return 201
            }
        )
        #expect(answer == 201)
        #expect(heard.log.withLock { $0 } == ["start graphql.fetch", "current", "call", "end graphql.fetch"])
        let ended = try #require(heard.ended.withLock { $0.first })
        #expect(ended.status == 201)
        #expect(ended.method == "POST")
        #expect(ended.failure == nil)
    }

    @Test("a failed upstream call ends with the failure's code and throws the same error to the door")
    func failedCall() async {
        let heard = AttributeRecorder()
        await #expect(throws: Refused(code: "connectFailed")) {
            _ = try await CacheDoorInstrumentation.upstreamCall(
                heard, .restFetch, attributes: { CacheOperationAttributes(part: "rest") },
                status: { (status: Int) in status }, failure: { (error: Refused) in error.code },
                call: { () async throws(Refused) -> Int in throw Refused(code: "connectFailed") }
            )
        }
        let ended = heard.ended.withLock { $0 }
        #expect(ended.count == 1)
        #expect(ended.first?.failure == "connectFailed")
        #expect(ended.first?.status == nil)
    }

    @Test("a second-level read ends with its outcome and the store's description; an unavailable store is a miss")
    func secondLevelReads() async {
        let heard = AttributeRecorder()
        let generation = SecondLevelGeneration(token: "1.1")
        let backend = CacheBackendDescription(system: "redis", operationName: "EVALSHA")
        let reads: [SecondLevelEntryRead<String>] = [
            .hit("entry", generation: generation), .miss(generation: generation), .unavailable,
        ]
        for read in reads {
            let found = await CacheDoorInstrumentation.secondLevelRead(heard, part: .rest, backend: backend) { read }
            #expect(found == read)
        }
        let ended = heard.ended.withLock { $0 }
        #expect(ended.map(\.outcome) == ["hit", "miss", "miss"])
        #expect(ended.map(\.failure) == [nil, nil, "unavailable"])
        #expect(ended.allSatisfy { $0.tier == "l2" && $0.part == "rest" && $0.databaseSystem == "redis" })
        #expect(heard.log.withLock { $0 }.filter { $0 == "start l2.read" }.count == 3)
    }

    @Test("a served answer counts the resilience option that chose it; an ordinary hit counts nothing")
    func servedAnswers() {
        let heard = AttributeRecorder()
        let counts = StaleAnswerCounts()
        CacheDoorInstrumentation.served(
            heard, part: .graphql, tier: .l1, outcome: .stale, reason: .failSafe, staleAnswers: counts)
        CacheDoorInstrumentation.served(heard, part: .rest, tier: .l2, outcome: .hit, reason: nil, staleAnswers: counts)
        CacheDoorInstrumentation.served(
            nil, part: .rest, tier: .l1, outcome: .stale, reason: .softTimeout, staleAnswers: counts)

        #expect(counts.count(.failSafe) == 1)
        #expect(counts.count(.softTimeout) == 1)
        #expect(counts.count(.eagerRefresh) == 0)
        #expect(
            heard.served.withLock { $0 } == [
                CacheHit(part: .graphql, tier: .l1, outcome: .stale, staleReason: .failSafe),
                CacheHit(part: .rest, tier: .l2, outcome: .hit),
            ])
    }
}

/// Keeps every attribute an operation ended with, and what it served.
final class AttributeRecorder: CacheInstrumentation {
    let log = Mutex<[String]>([])
    let ended = Mutex<[CacheOperationAttributes]>([])
    let served = Mutex<[CacheHit]>([])

    func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        log.withLock { $0.append("start \(operation.rawValue)") }
        return CacheOperationToken(operation: operation)
    }

    func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        log.withLock { $0.append("end \(token.operation.rawValue)") }
        ended.withLock { $0.append(attributes) }
    }

    func withCurrent<Result>(_ token: CacheOperationToken, _ body: () async -> Result) async -> Result {
        log.withLock { $0.append("current") }
        return await body()
    }

    func cacheDidServe(_ hit: CacheHit) {
        served.withLock { $0.append(hit) }
    }
}
