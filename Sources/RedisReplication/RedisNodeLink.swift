import CacheCore

/// What a reply of the second level's connection settles.
enum RedisSecondLevelOwed {
    /// A read's last reply, the read sent under the epoch its value key names; `earlier` holds the replies of its
    /// ``readPart``s that came before this entry was owed (a caller's read handed over midway).
    case read(Int, epoch: String, earlier: [RedisReply])
    /// A reply of a pipelined read that comes before its last (one server: the epoch, then the generation): the link
    /// keeps it and adds it to the read's `earlier` (see ``RedisNodeLink/replies()``).
    case readPart
    case write(bytes: Int)
    /// A step of a clear (re-queued when the node is lost before it answered).
    case clear(RedisPendingClear)
    /// A read of the epoch (the health check of the node that holds it).
    case epoch
    case ping
    /// The reply to `ASKING` before a redirected command.
    case asking
    /// A step of a clear sent to a primary that has replicas: its reply is held until the `WAIT` behind it says a
    /// replica has it too (see `RedisSecondLevelWorker+Replicas.swift`).
    case clearAwaitingReplica(RedisPendingClear)
    /// The `WAIT 1 <ms>` behind such a step.
    case replicaWait(RedisPendingClear)
}

/// A clear not yet applied: the callers' clear ids and the step to send next.
struct RedisPendingClear {
    enum Step {
        case namespace(SecondLevelNamespace)
        /// Take the tag sets into the clear's pending set `pending` (first step of a tag clear).
        case takeTags([SecondLevelTag], SecondLevelNamespace, pending: String)
        /// Delete the values the sets named, and the pending set (second step).
        case deleteValues([[UInt8]], SecondLevelNamespace, epoch: String, pending: String)
        case all
    }

    var ids: [Int]
    var step: Step
    /// Times this step was applied by a primary whose replicas did not confirm it within the `WAIT`.
    var unconfirmed = 0
}

/// A command sent on a node's connection and still owed a reply, with what the reply settles.
struct RedisOwedCommand {
    var what: RedisSecondLevelOwed
    var command: RedisRoutedCommand
    var sentAt: ContinuousClock.Instant
    /// Redirections followed so far (bounded, so two nodes that disagree cannot bounce a command forever).
    var redirects = 0
}

/// One node's connection of the second level, the replies it owes (oldest first: Redis answers in order) and its
/// reconnection backoff. Used only by the store's thread.
final class RedisNodeLink {
    let node: RedisNodeAddress
    private(set) var connection: RedisConnection?
    private var owed: [RedisOwedCommand] = []
    private var owedHead = 0
    var lastSend: ContinuousClock.Instant
    var nextAttempt: ContinuousClock.Instant
    var backoff: Duration
    /// Whether the socket took less than was queued (poll for writability).
    var wantsWrite = false
    /// Whether the node was a primary with replicas when connected (`ROLE`): clear steps sent to it are followed by
    /// `WAIT`. Cleared when its replicas stop confirming, until the next connection asks again.
    var hasReplicas = false
    /// Replies of clear steps whose `WAIT` is still owed, oldest first (Redis answers in order).
    var awaitingReplica: [(item: RedisOwedCommand, reply: RedisReply)] = []
    /// Replies of ``RedisSecondLevelOwed/readPart``s received, for the read owed right behind them (Redis answers in
    /// order, so they belong to the next `.read`).
    private var readParts: [RedisReply] = []

    init(node: RedisNodeAddress, now: ContinuousClock.Instant, backoff: Duration) {
        self.node = node
        lastSend = now
        nextAttempt = now
        self.backoff = backoff
    }

    var isConnected: Bool { connection != nil }
    var isIdle: Bool { owedHead == owed.count }
    var oldestSentAt: ContinuousClock.Instant? { owed.dropFirst(owedHead).first?.sentAt }

    /// Whether a connecting thread is making this node's connection now.
    var isConnecting = false

    /// Connects to `node`, authenticates and loads the scripts (each step bounded by the configured timeouts);
    /// reads the epoch too when `epochKey` is given. Blocking: run on a connecting thread, never the loop's.
    static func handshake(
        _ configuration: RedisReplicationConfiguration, node: RedisNodeAddress, epochKey: [UInt8]?
    ) -> RedisNodeHandshake {
        do throws(RedisReplicationError) {
            let made = try RedisConnection(configuration.pointed(at: node))
            var hashes: [[UInt8]] = []
            for load in RedisSecondLevelCommands.scriptLoads {
                guard case .string(let hash) = try made.command(load) else {
                    throw RedisReplicationError(.protocolError, "Redis refused SCRIPT LOAD.")
                }
                hashes.append(hash)
            }
            // A user whose ACL lacks ROLE (or WAIT) clears as before: without a replica's confirmation.
            let hasReplicas = RedisSecondLevelCommands.hasReplicas(try made.command([Array("ROLE".utf8)]))
            var epoch: String?
            if let epochKey {
                let reply = try made.command([Array("GET".utf8), epochKey])
                guard let read = RedisSecondLevelCommands.epoch(in: reply) else {
                    // An ACL refusal ("NOPERM …") names the key pattern the user lacks; keep it for the operator.
                    let detail: String? = if case .error(let text) = reply { text } else { nil }
                    throw RedisReplicationError(
                        .protocolError, "Redis answered GET of the epoch with something else.", underlying: detail)
                }
                epoch = read
            }
            let scripts = ScriptHashes(
                read: hashes[0], write: hashes[1], clearNamespace: hashes[2], takeTags: hashes[3],
                takeTagsCurrentEpoch: hashes[4], moveEpoch: hashes[5])
            return RedisNodeHandshake(
                node: node,
                result: .success(.init(connection: made, hashes: scripts, epoch: epoch, hasReplicas: hasReplicas)))
        } catch {
            return RedisNodeHandshake(node: node, result: .failure(error))
        }
    }

    /// Takes over a connection a handshake made.
    func adopt(_ connection: RedisConnection, now: ContinuousClock.Instant) {
        self.connection = connection
        isConnecting = false
        lastSend = now
    }

    /// Queues a command, owed its reply before it is queued (a failure midway loses none of them).
    func send(_ item: RedisOwedCommand) throws(RedisReplicationError) {
        guard let connection else { throw RedisReplicationError(.connectionLost, "The node \(node) is not connected.") }
        owed.append(item)
        lastSend = item.sentAt
        connection.append { $0.append(contentsOf: item.command.request) }
    }

    /// Owes a reply to a command a caller wrote on the connection while it was lent (see ``RedisSecondLevelLane``).
    func owe(_ item: RedisOwedCommand) {
        owed.append(item)
        lastSend = item.sentAt
    }

    /// `ASKING`, then the command, on this node.
    func sendAsking(_ item: RedisOwedCommand) throws(RedisReplicationError) {
        try send(
            RedisOwedCommand(
                what: .asking, command: RedisRoutedCommand(RedisSecondLevelCommands.asking, key: []),
                sentAt: item.sentAt))
        try send(item)
    }

    func flush() throws(RedisReplicationError) {
        guard let connection else { return }
        wantsWrite = try !connection.flush()
    }

    /// Every complete reply the socket holds now, each with the command it answers. A read's parts are not among
    /// them: they come with the read's last reply, in its `earlier` (they may arrive in an earlier batch). A reply
    /// nothing asked for throws with none of this batch's commands taken as answered, so the caller's ``drop()``
    /// hands them all back (reads fail, writes are dropped and counted, clears are sent again) instead of losing the
    /// ones matched before it.
    func replies() throws(RedisReplicationError) -> [(RedisOwedCommand, RedisReply)] {
        guard let connection else { return [] }
        var settled: [(RedisOwedCommand, RedisReply)] = []
        let firstOwed = owedHead
        for reply in try connection.readAvailable() {
            guard owedHead < owed.count else {
                owedHead = firstOwed
                throw RedisReplicationError(.protocolError, "Redis sent a reply nothing asked for.")
            }
            var item = owed[owedHead]
            owedHead += 1
            switch item.what {
            case .readPart:
                readParts.append(reply)
                continue
            case .read(let id, let epoch, let earlier) where !readParts.isEmpty:
                item.what = .read(id, epoch: epoch, earlier: earlier + readParts)
                readParts.removeAll(keepingCapacity: true)
            default:
                break
            }
            settled.append((item, reply))
        }
        if owedHead == owed.count {
            owed.removeAll(keepingCapacity: true)
            owedHead = 0
        } else if owedHead >= 4096, owedHead * 2 >= owed.count {
            owed.removeFirst(owedHead)  // a pipeline that never drains must not grow forever
            owedHead = 0
        }
        return settled
    }

    /// Closes the connection and returns the commands still owed a reply.
    func drop() -> [RedisOwedCommand] {
        connection = nil
        wantsWrite = false
        readParts.removeAll()  // their reads are owed too, and fail
        awaitingReplica.removeAll()  // their WAITs are owed too: failed, they send the steps again
        defer {
            owed.removeAll()
            owedHead = 0
        }
        return Array(owed[owedHead...])
    }
}

/// A node's connection made (or refused) on a connecting thread, handed to the loop's thread under its lock.
///
/// `@unchecked Sendable`: the connection is created on the connecting thread, which keeps no reference to it once
/// this value is under the loop's lock; from then on only the loop's thread touches it, so it is never used by two
/// threads at once.
struct RedisNodeHandshake: @unchecked Sendable {
    struct Made {
        let connection: RedisConnection
        let hashes: ScriptHashes
        let epoch: String?
        let hasReplicas: Bool
    }

    let node: RedisNodeAddress
    let result: Result<Made, RedisReplicationError>
}
