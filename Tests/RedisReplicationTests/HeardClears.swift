import Testing

@testable import UnifiedCache

/// The query clears a raw subscriber heard (single-clear messages): each session's queries in the order heard, and
/// the counters they were sealed under in that order. A payload that is not one query clear is recorded as an issue.
func heardQueryClears(_ payloads: [[UInt8]]) throws -> (bySession: [String: [String]], counters: [UInt64]) {
    let opener = ReplicationSealer(secret: try ReplicationSecret(Array(ReplicaHarness.secret.utf8)))
    var queriesBySession: [String: [String]] = [:]
    var counters: [UInt64] = []
    for payload in payloads {
        guard case .message(let envelope, let plaintext) = opener.open(payload),
            let message = ReplicationMessageCodec.decode(plaintext), let session = message.session,
            case .query(let query) = message.clear
        else {
            Issue.record("a payload on the channel is not one of the burst's clears")
            continue
        }
        queriesBySession[session, default: []].append(query)
        counters.append(envelope.counter)
    }
    return (queriesBySession, counters)
}
