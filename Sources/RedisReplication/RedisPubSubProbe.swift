/// Publish-to-delivery latency between two connections, classic (`PUBLISH`/`SUBSCRIBE`) or sharded
/// (`SPUBLISH`/`SSUBSCRIBE`), for the benchmark that compares them on a Redis Cluster (`ucache-bench replicas`).
package enum RedisPubSubProbe {
    /// Sends `count` messages from a connection to `publisher` and times each until a connection to `subscriber`
    /// receives it, one at a time. Sharded needs both on the node that owns the channel's slot.
    package static func latencies(
        publisher: RedisReplicationConfiguration, subscriber: RedisReplicationConfiguration, channel: String,
        sharded: Bool, count: Int
    ) throws(RedisReplicationError) -> [Duration] {
        let listening = try RedisConnection(subscriber)
        let subscribe = Array((sharded ? "SSUBSCRIBE" : "SUBSCRIBE").utf8)
        guard case .array = try listening.command([subscribe, Array(channel.utf8)]) else {
            throw RedisReplicationError(.protocolError, "Redis did not confirm the subscription.")
        }
        let sending = try RedisConnection(publisher)
        let publish = Array((sharded ? "SPUBLISH" : "PUBLISH").utf8)
        let clock = ContinuousClock()
        var samples: [Duration] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let begin = clock.now
            try sending.append([publish, Array(channel.utf8), Array(String(index).utf8)])
            while try !sending.flush() {}
            var received = false
            while !received {
                received = try listening.readAvailable().contains { reply in
                    guard case .array(let items) = reply, let kind = items.first?.text else { return false }
                    return kind == "message" || kind == "smessage"
                }
            }
            samples.append(clock.now - begin)
            _ = try sending.readAvailable()  // the publish's own reply
        }
        return samples
    }
}
