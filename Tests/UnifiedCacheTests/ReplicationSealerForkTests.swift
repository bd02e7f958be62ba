import Synchronization
import Testing

@testable import UnifiedCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Replication sealer after fork(): the child draws a sender id of its own, never the parent's nonces")
struct ReplicationSealerForkTests {
    private let key = Array("fleet-secret-0123456789-0123456789".utf8)

    private func envelope(_ opened: ReplicationSealer.Opened) -> ReplicationEnvelope? {
        if case .message(let envelope, _) = opened { return envelope }
        return nil
    }

    @Test("a seal in another process (the pid the sealer sees changes) uses a new sender id and starts its counter")
    func newProcessNewSender() throws {
        let pid = Mutex<Int32>(4_100)
        let sealer = ReplicationSealer(secret: try ReplicationSecret(key), processID: { pid.withLock { $0 } })
        let receiver = ReplicationSealer(secret: try ReplicationSecret(key))
        var sealed: [[UInt8]] = []
        sealer.seal([1], issuedAt: 1_000) { sealed.append($0) }
        sealer.seal([2], issuedAt: 1_001) { sealed.append($0) }
        let parentSender = sealer.sender

        pid.withLock { $0 = 4_101 }  // what the child of a fork() sees
        // Before the child seals anything, the parent's messages are already another replica's to it.
        #expect(sealer.open(sealed[1]) == receiver.open(sealed[1]) && sealer.sender != parentSender)
        sealer.seal([3], issuedAt: 1_002) { sealed.append($0) }
        sealer.seal([4], issuedAt: 1_003) { sealed.append($0) }
        let envelopes = sealed.map { receiver.open($0) }.compactMap(envelope)
        try #require(envelopes.count == 4)
        #expect(envelopes[0].sender == parentSender && envelopes[1].sender == parentSender)
        #expect(envelopes[2].sender != parentSender && envelopes[2].sender == envelopes[3].sender)
        #expect(sealer.sender == envelopes[2].sender)
        #expect(envelopes.map(\.counter) == [1, 2, 1, 2])
        // Counter 2 again, but under the child's sender (its own key): no nonce is reused under one key.
        #expect(Set(envelopes.map { $0.sender + $0.nonce }).count == 4)
        // The parent's messages are no longer this sealer's own: the child applies them like any replica's.
        #expect(sealer.open(sealed[0]) == receiver.open(sealed[0]) && sealer.open(sealed[2]) == .own)
    }

    @Test("the same process keeps its sender id and counter")
    func sameProcessSameSender() throws {
        let sealer = ReplicationSealer(secret: try ReplicationSecret(key), processID: { 4_200 })
        let receiver = ReplicationSealer(secret: try ReplicationSecret(key))
        var sealed: [[UInt8]] = []
        for index in 0..<3 { sealer.seal([UInt8(index)], issuedAt: 1_000) { sealed.append($0) } }
        let envelopes = sealed.map { receiver.open($0) }.compactMap(envelope)
        #expect(envelopes.map(\.counter) == [1, 2, 3])
        #expect(Set(envelopes.map(\.sender)) == [sealer.sender])
    }

    // Not under ThreadSanitizer: a fork() of a process with threads can leave the child blocked on TSan's own locks
    // (seen: the whole test process waiting on the child). The injected-pid test above covers the logic there.
    #if os(Linux) && !UCACHE_TSAN
        @Test("a real fork(): the child's message carries another sender id than the parent's, with getpid() as is")
        func realFork() throws {
            let sealer = ReplicationSealer(secret: try ReplicationSecret(key))
            let receiver = ReplicationSealer(secret: try ReplicationSecret(key))
            var parentSealed: [UInt8] = []
            sealer.seal([1], issuedAt: 1_000) { parentSealed = $0 }
            // A child of a process with threads blocks for good if another thread held a lock the child needs at the
            // fork (OpenSSL's locks have no fork handlers, and the other tests run in parallel): such a child is
            // killed after a while and the fork made again, so the test fails instead of hanging the run.
            var sealedByChild: [UInt8]?
            for _ in 0..<3 where sealedByChild == nil {
                sealedByChild = try sealInChild(sealer, waitingAtMost: .seconds(20))
            }
            let childSealed = try #require(sealedByChild, "three children of fork() blocked on a lock held at the fork")
            let parent = try #require(envelope(receiver.open(parentSealed)))
            let fromChild = try #require(envelope(receiver.open(childSealed)))
            #expect(fromChild.sender != parent.sender)
            #expect(fromChild.counter == 1)
            #expect(sealer.open(childSealed) != .own)  // to the parent, the child is another replica
        }

        /// Forks; the child seals one message with `sealer` and writes it to a pipe. Its bytes, or nil when the child
        /// wrote nothing within `limit` (it is killed).
        private func sealInChild(_ sealer: ReplicationSealer, waitingAtMost limit: Duration) throws -> [UInt8]? {
            var pipeEnds: [Int32] = [0, 0]
            try #require(pipe(&pipeEnds) == 0)
            let child = fork()
            if child == 0 {
                // The child: one seal, its bytes to the pipe, and out without running anything of the parent's.
                close(pipeEnds[0])
                sealer.seal([2], issuedAt: 1_001) { sealed in
                    _ = sealed.withUnsafeBytes { write(pipeEnds[1], $0.baseAddress, $0.count) }
                }
                _exit(0)
            }
            try #require(child > 0)
            close(pipeEnds[1])
            defer { close(pipeEnds[0]) }
            let deadline = ContinuousClock.now + limit
            var childSealed: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else {
                    kill(child, SIGKILL)
                    var status: Int32 = 0
                    _ = waitpid(child, &status, 0)
                    return nil
                }
                var ready = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(clamping: remaining.components.seconds * 1_000 + 1)
                guard poll(&ready, 1, milliseconds) > 0 else { continue }
                let count = read(pipeEnds[0], &buffer, buffer.count)
                guard count > 0 else { break }
                childSealed.append(contentsOf: buffer[0..<count])
            }
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
            return childSealed
        }
    #endif
}
