import FixtureSupport
import Foundation
import RedisReplication
import Synchronization
import UnifiedCache

/// A receiver that records what a transport delivered, for tests of the transport alone.
final class RecordingReceiver: ReplicationReceiver {
    private let recorded = Mutex<(payloads: [[UInt8]], states: [ReplicationLinkState], drops: Int)>(([], [], 0))

    func transportDidReceive(_ payload: [UInt8]) { recorded.withLock { $0.payloads.append(payload) } }
    func transportDidChange(_ state: ReplicationLinkState) { recorded.withLock { $0.states.append(state) } }
    func transportDidDropOutgoingMessages() { recorded.withLock { $0.drops += 1 } }

    var payloads: [[UInt8]] { recorded.withLock { $0.payloads } }
    var states: [ReplicationLinkState] { recorded.withLock { $0.states } }
    var drops: Int { recorded.withLock { $0.drops } }
    var isSubscribed: Bool { states.last == .subscribed }
    /// Subscribed at least once (authentication passed), even if a starved machine lost the link since.
    var hasSubscribed: Bool { states.contains(.subscribed) }
}

/// A channel no other test uses, so tests share one Redis without seeing each other's messages.
func uniqueChannel(_ label: String) -> String {
    "ucache-test:\(label):\(UUID().uuidString.prefix(8))"
}

/// A configuration for `url` on its own channel, with short pings and backoff so outage tests finish quickly (the
/// command timeout stays 1 s: shorter ones can trip on a loaded machine and drop what a test cached).
func redisConfiguration(url: String, channel: String) throws -> RedisReplicationConfiguration {
    var configuration = try redisURLConfiguration(url)
    configuration.channel = channel
    configuration.commandTimeout = .milliseconds(TestTiming.milliseconds(1_000))
    configuration.pingInterval = .milliseconds(250)
    configuration.initialBackoff = .milliseconds(20)
    configuration.maximumBackoff = .milliseconds(200)
    return configuration
}

/// `url` parsed; a `rediss://` URL also takes the process's `UCACHE_REDIS_TLS_*` settings (the CA and client
/// certificate of docker compose's `tls` profile, where `UCACHE_REDIS_URL` is a TLS Redis).
func redisURLConfiguration(_ url: String) throws -> RedisReplicationConfiguration {
    guard url.hasPrefix("rediss://") else { return try RedisReplicationConfiguration(url: url) }
    var environment = ProcessInfo.processInfo.environment
    environment[RedisReplicationConfiguration.urlEnvironmentVariable] = url
    environment[RedisReplicationConfiguration.allowNoAuthEnvironmentVariable] = nil
    guard let configuration = try RedisReplicationConfiguration(environment: environment) else {
        throw RedisReplicationError(.invalidURL, "no URL")
    }
    return configuration
}
