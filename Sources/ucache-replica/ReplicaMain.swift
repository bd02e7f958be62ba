import Foundation
import RESTCache
import RedisReplication
import UnifiedCache

/// `ucache-replica`: one replica of a BFF fleet as a process, driven line by line on stdin, for the two-process
/// replication test and for trying replication by hand.
///
/// Environment: `UCACHE_UPSTREAM_URL` (the REST/GraphQL upstream root, e.g. a fixture tenant), `UCACHE_REDIS_URL`,
/// `UCACHE_REDIS_CHANNEL`, `UCACHE_REPLICATION_SECRET` (and `UCACHE_REDIS_ALLOW_NO_AUTH=1` for a Redis without a
/// password). Commands (one answer line each):
/// `ready` (waits until subscribed), `fetch SESSION TOKEN PATH KEY` (answers `network` or `cache`),
/// `clearAll SESSION`, `end SESSION`, `applied` (clears of other replicas applied so far), `quit`.
@main
struct ReplicaMain {
    struct Cached: RequestType {
        struct Anything: Decodable, Sendable { init(from decoder: any Decoder) throws {} }
        typealias Response = Anything
        var path: String
        var key: String
        var cache: RequestCache? { RequestCache(key: key, timeout: .seconds(600)) }
    }

    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("ucache-replica: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let upstream = environment["UCACHE_UPSTREAM_URL"],
            let redis = try RedisReplicationConfiguration(environment: environment),
            let secret = try ReplicationSecret(environment: environment)
        else {
            throw RedisReplicationError(
                .invalidURL, "set UCACHE_UPSTREAM_URL, UCACHE_REDIS_URL and UCACHE_REPLICATION_SECRET")
        }
        let hub = try CacheHub(
            configuration: .init(
                restBaseURL: upstream,
                graphQLEndpoint: "\(upstream)/graphql",
                replication: ReplicationConfiguration(
                    transport: RedisReplicationTransport(configuration: redis), secret: secret)
            ).withBankingPresets(),
            settings: SettingsStore(settings: .banking)
        )
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "ready":
                while !(hub.replicationStatistics?.linkState.isUp ?? false)
                    || (hub.replicationStatistics?.gapsRecovered ?? 0) == 0
                {
                    try await Task.sleep(for: .milliseconds(2))  // waiting for the subscription, not for time
                }
                answer("ready")
            case "fetch" where words.count == 5:
                // The principal as the BFF would verify it from the token (the fixture's tokens are "token-<user>").
                let principal = VerifiedPrincipal(String(words[2].dropFirst("token-".count)))
                let session = hub.session(id: words[1], principal: principal, credentials: .bearer(words[2]))
                switch await session.rest.performWithSource(with: Cached(path: words[3], key: words[4])) {
                case .success(let result): answer(result.source == .cache ? "cache" : "network")
                case .failure(let error): answer("error \(error)")
                }
            case "clearAll" where words.count == 2:
                await hub.existingSession(id: words[1])?.cacheManager.clearAllCaches()
                answer("ok")
            case "end" where words.count == 2:
                await hub.endSession(id: words[1])
                answer("ok")
            case "applied":
                answer("\(hub.replicationStatistics?.applied ?? 0)")
            case "quit":
                await hub.shutdown()
                return
            default:
                answer("unknown command")
            }
        }
        await hub.shutdown()
    }

    static func answer(_ text: String) {
        // Unbuffered: the driver waits for each answer line.
        FileHandle.standardOutput.write(Data("\(text)\n".utf8))
    }
}
