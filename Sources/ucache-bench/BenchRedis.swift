import FixtureSupport
import Foundation
import RedisReplication

/// The Redis of the `l2` and `replicas` suites: `UCACHE_REDIS_URL` (with its `UCACHE_REDIS_TLS_*` settings), or a
/// redis-server started on a free loopback port, TLS-only with freshly made test certificates under `--redis tls`
/// (or `UCACHE_BENCH_REDIS=tls`), verified as in production (CA and host name).
struct BenchRedis {
    /// The server started here; nil when `UCACHE_REDIS_URL` names one or under `--cluster 1`.
    let server: RedisTestServer?
    /// The 3-primary cluster started here under `--cluster 1`.
    var cluster: RedisTestCluster? = nil
    /// How to reach it.
    let configuration: RedisReplicationConfiguration

    static func start(options: BenchOptions) async throws -> BenchRedis {
        let environment = ProcessInfo.processInfo.environment
        if let given = try RedisReplicationConfiguration(environment: environment) {
            return BenchRedis(server: nil, configuration: given)
        }
        if options.int("cluster", default: 0) == 1 {
            let cluster = try await RedisTestCluster.start()
            return BenchRedis(
                server: nil, cluster: cluster, configuration: try RedisReplicationConfiguration(url: cluster.url))
        }
        guard options.string("redis") == "tls" else {
            let server = try await RedisTestServer.start()
            return BenchRedis(server: server, configuration: try RedisReplicationConfiguration(url: server.url))
        }
        let certificates = try await TestCertificates.shared()
        let server = try await RedisTestServer.start(
            tls: RedisTestServer.TLSSettings(
                certificateFile: certificates.serverCertificateFile, keyFile: certificates.serverKeyFile,
                caFile: certificates.caFile))
        var configuration = try RedisReplicationConfiguration(url: server.url)
        configuration.tls?.caFile = certificates.caFile
        return BenchRedis(server: server, configuration: configuration)
    }

    /// Where the figures come from, for the report's notes.
    var note: String {
        let transport = configuration.tls == nil ? "plaintext" : "TLS (verified)"
        let source =
            cluster != nil
            ? "a 3-primary cluster on loopback" : server == nil ? "from UCACHE_REDIS_URL" : "started on loopback"
        return "Redis \(source), \(transport)"
    }
}
