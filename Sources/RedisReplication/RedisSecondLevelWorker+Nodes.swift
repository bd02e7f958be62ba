import CacheCore
import Foundation  // Thread, per connection attempt; nothing per request

/// Nodes: discovery of the slot map, connections, routing and the loss of a node.
extension RedisSecondLevelWorker {
    /// The node that serves `slot`: the one configured node, or the slot's owner in the cluster map.
    func node(for slot: Int) -> RedisNodeAddress? {
        isCluster ? map[slot] : configuredNode
    }

    /// The connected link of the node that serves `slot`; nil when that node is unknown or not connected.
    func connectedLink(for slot: Int) -> RedisNodeLink? {
        guard let node = node(for: slot), let link = links[node], link.isConnected else { return nil }
        return link
    }

    func linkTo(_ node: RedisNodeAddress) -> RedisNodeLink {
        if let link = links[node] { return link }
        let made = RedisNodeLink(node: node, now: clock.now, backoff: configuration.connection.initialBackoff)
        links[node] = made
        return made
    }

    /// Takes what connecting threads finished, then starts discovering the slot map when it is missing or stale (at
    /// most once per ping interval) and connecting every node whose reconnection is due, each on a thread of its own.
    func maintain() {
        let (handshakes, discovered) = loop.handoff.withLock { handoff in
            defer { handoff = ([], []) }
            return handoff
        }
        for (found, error) in discovered { adopt(found, error) }
        for handshake in handshakes { adopt(handshake) }
        if !handshakes.isEmpty { publishConnectionState() }
        let now = clock.now
        if isCluster, !isDiscovering, map.nodes.isEmpty || mapRefreshDue, now >= nextDiscovery {
            isDiscovering = true
            let (loop, connection, known) = (loop, configuration.connection, map.nodes.union(links.keys))
            Self.startThread("RedisSecondLevel discovery") {
                let found = RedisClusterMap.discover(connection, known: known)
                loop.handoff.withLock { $0.discovered.append(found) }
                loop.wakePipe.wake()
            }
        }
        func connectIfDue(_ node: RedisNodeAddress) {
            let link = linkTo(node)
            if !link.isConnected, !link.isConnecting, now >= link.nextAttempt { startConnecting(link) }
        }
        guard isCluster else { return connectIfDue(configuredNode) }  // one server: no set made per turn
        for node in map.nodes { connectIfDue(node) }
    }

    private func adopt(_ found: RedisClusterMap, _ error: RedisReplicationError?) {
        isDiscovering = false
        if found.nodes.isEmpty {
            if let error { record(error) }
            nextDiscovery =
                clock.now + RedisBackoff.advance(&discoveryBackoff, maximum: configuration.connection.maximumBackoff)
        } else {
            map = found
            mapRefreshDue = false
            discoveryBackoff = configuration.connection.initialBackoff
            nextDiscovery = clock.now + configuration.connection.pingInterval
            forgetNodesOutsideMap()
        }
    }

    /// Closes the connections of nodes that serve no slot now (a primary a failover made a replica, a node removed):
    /// each once it owes no reply (until then the map is discovered again, so it is looked at again soon).
    private func forgetNodesOutsideMap() {
        var closed = false
        for (node, link) in links where !map.nodes.contains(node) && !link.isConnecting {
            if link.isConnected {
                guard link.isIdle else {
                    mapRefreshDue = true
                    continue
                }
                _ = link.drop()
                closed = true
            }
            links[node] = nil
        }
        if closed { publishConnectionState() }
    }

    private func adopt(_ handshake: RedisNodeHandshake) {
        let link = linkTo(handshake.node)
        link.isConnecting = false
        switch handshake.result {
        case .success(let made):
            link.adopt(made.connection, now: clock.now)
            link.hasReplicas = made.hasReplicas
            commands = RedisSecondLevelCommands(
                keys: keys, hashes: made.hashes, maxTimeToLive: configuration.maxTimeToLive, readsEpochKey: !isCluster)
            if let read = made.epoch {
                epoch = read
                lastEpochPoll = clock.now
            }
            link.backoff = configuration.connection.initialBackoff
        case .failure(let error):
            record(error)
            scheduleReconnection(link)
        }
    }

    /// The node that holds the epoch key.
    var epochNode: RedisNodeAddress? { node(for: epochSlot) }

    /// Connects, authenticates and loads the scripts on a thread of its own; the node that holds the epoch also reads
    /// it. The loop adopts the connection at its next turn.
    func startConnecting(_ link: RedisNodeLink) {
        link.isConnecting = true
        let (loop, connection, node) = (loop, configuration.connection, link.node)
        let epochKey = node == epochNode ? keys.epoch : nil
        Self.startThread("RedisSecondLevel connect") {
            let handshake = RedisNodeLink.handshake(connection, node: node, epochKey: epochKey)
            loop.handoff.withLock { $0.handshakes.append(handshake) }
            loop.wakePipe.wake()
        }
    }

    private static func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }

    /// The next attempt after the link's backoff (see `RedisBackoff`).
    func scheduleReconnection(_ link: RedisNodeLink) {
        link.nextAttempt =
            clock.now + RedisBackoff.advance(&link.backoff, maximum: configuration.connection.maximumBackoff)
        if isCluster { mapRefreshDue = true }  // a failover may have moved its slots
    }

    /// Drops a node's connection: its reads in flight fail now, its writes in flight are dropped, its clears in
    /// flight are sent again once their node answers.
    func disconnect(_ link: RedisNodeLink, _ error: RedisReplicationError) {
        record(error)
        for item in link.drop().reversed() { fail(item) }  // reversed: clears go back in their order
        if link.node == epochNode { epochPollOutstanding = false }
        deliver()
        publishConnectionState()
        scheduleReconnection(link)
    }

    /// A command that will get no answer: a read fails, a write is dropped, a clear waits to be sent again.
    func fail(_ item: RedisOwedCommand) {
        switch item.what {
        case .read(let id, _, _):
            guard let read = reads.removeValue(forKey: id) else { return }
            delta.errors += 1
            answered.append((read.continuation, .unavailable(.error)))
        case .write:
            answeredWrites += 1
            delta.droppedWrites += 1
        case .clear(let clear), .replicaWait(let clear):
            pendingClears.insert(clear, at: 0)
        case .clearAwaitingReplica:
            break  // the WAIT sent right behind it is owed too, and sends the step again
        case .epoch:
            epochPollOutstanding = false
        case .ping, .asking, .readPart:
            break  // a read part's read is owed right behind it, and fails
        }
    }

    /// Sends `item` to the node that owns its slot, or fails it when that node is not connected.
    func dispatch(_ item: RedisOwedCommand) {
        guard let link = connectedLink(for: item.command.slot) else { return fail(item) }
        do throws(RedisReplicationError) {
            try link.send(item)
        } catch {
            disconnect(link, error)
        }
    }

    /// Follows a `MOVED` (the map is updated, and discovered again soon) or an `ASK` (`ASKING`, then the command
    /// once on the target). Returns false when `reply` is no redirection or the command was redirected too often.
    func redirect(_ item: RedisOwedCommand, _ reply: RedisReply, from link: RedisNodeLink) -> Bool {
        guard isCluster, item.redirects < 5,
            let redirection = RedisClusterRedirect(reply, fallbackHost: link.node.host)
        else { return false }
        var again = item
        again.redirects += 1
        again.sentAt = clock.now
        let target: RedisNodeAddress
        switch redirection {
        case .moved(let slot, let node):
            map.move(slot, to: node)
            mapRefreshDue = true
            target = node
        case .ask(_, let node):
            target = node
        }
        let targetLink = linkTo(target)
        guard targetLink.isConnected else {
            if !targetLink.isConnecting, clock.now >= targetLink.nextAttempt { startConnecting(targetLink) }
            fail(again)
            return true
        }
        do throws(RedisReplicationError) {
            if case .ask = redirection { try targetLink.sendAsking(again) } else { try targetLink.send(again) }
        } catch {
            disconnect(targetLink, error)
        }
        return true
    }
}
