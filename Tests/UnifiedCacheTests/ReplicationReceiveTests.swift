import Testing

@testable import UnifiedCache

/// A receiver reads a message's header where it arrived and keys senders by two words (`ReplicationSealer.receive`,
/// `ReplicationSenderID`): it must read what the sent header says, refuse what `open` refuses, and never take one
/// sender for another.
@Suite("Receiving a sealed message in place: the header as sent, every alteration refused, senders kept apart")
struct ReplicationReceiveTests {
    private let key = Array("fleet-secret-0123456789-0123456789".utf8)

    @Test("the header read in place is the one sent, for single clears and batches, at the issue times' extremes")
    func headerAsSent() throws {
        let sender = ReplicationSealer(secret: try ReplicationSecret(key))
        let receiver = ReplicationSealer(secret: try ReplicationSecret(key))
        let times: [Int64] = [0, 1_700_000_000_123, -1, .min, .max, 0x0102_0304_0506_0708]
        for (index, issuedAt) in times.enumerated() {
            let version = index.isMultiple(of: 2) ? ReplicationEnvelope.version : ReplicationEnvelope.batchVersion
            let plaintext = [UInt8](repeating: UInt8(index), count: index * 7)
            var sealed: [UInt8] = []
            sender.seal(plaintext, issuedAt: issuedAt, version: version) { sealed = $0 }
            guard case .message(let header, let opened) = receiver.receive(sealed) else {
                Issue.record("message \(index) did not open")
                continue
            }
            #expect(opened == plaintext)
            #expect(header.isBatch == (version == ReplicationEnvelope.batchVersion))
            #expect(header.sender == ReplicationSenderID(sender.sender) && header.sender.bytes == sender.sender)
            #expect(header.counter == UInt64(index + 1) && header.issuedAt == issuedAt)
            #expect(receiver.open(sealed) == .message(try #require(ReplicationEnvelope(parsing: sealed)), plaintext))
        }
    }

    @Test("a change to any one byte of a message, header or body, is refused; its own messages are the sender's")
    func everyByteBound() throws {
        let sender = ReplicationSealer(secret: try ReplicationSecret(key))
        let receiver = ReplicationSealer(secret: try ReplicationSecret(key))
        var sealed: [UInt8] = []
        sender.seal(Array("account ACC-1 and some more bytes".utf8), issuedAt: 1_700_000_000_000) { sealed = $0 }
        #expect(sender.receive(sealed) == .own)
        for offset in sealed.indices {
            var altered = sealed
            altered[offset] ^= 0x80
            let outcome = receiver.receive(altered)
            // The version byte makes it no format at all; any other byte breaks the seal.
            #expect(outcome == (offset == 0 ? .malformed : .unauthentic), "byte \(offset)")
            #expect(receiver.open(altered) == (offset == 0 ? .malformed : .unauthentic))
        }
        #expect(receiver.receive(Array(sealed.dropLast())) == .unauthentic)
        #expect(receiver.receive(Array(sealed.prefix(ReplicationEnvelope.minimumLength - 1))) == .malformed)
        #expect(receiver.receive([]) == .malformed)
    }

    @Test("senders whose ids differ in one byte only, first or last, are different senders: keys and windows apart")
    func sendersKeptApart() throws {
        let base = [UInt8](repeating: 0x5A, count: ReplicationEnvelope.senderLength)
        var lastDiffers = base
        lastDiffers[15] ^= 1
        var firstDiffers = base
        firstDiffers[0] ^= 1
        let ids = [base, lastDiffers, firstDiffers].map(ReplicationSenderID.init)
        #expect(Set(ids).count == 3)
        #expect(ids.map(\.bytes) == [base, lastDiffers, firstDiffers])

        let receiver = ReplicationSealer(secret: try ReplicationSecret(key))
        var opened: [ReplicationSealer.ReceivedHeader] = []
        for id in [base, lastDiffers, firstDiffers, base] {
            let sender = ReplicationSealer(secret: try ReplicationSecret(key), sender: id)
            var sealed: [UInt8] = []
            sender.seal([1, 2, 3], issuedAt: 5) { sealed = $0 }
            guard case .message(let header, _) = receiver.receive(sealed) else {
                Issue.record("a message of a sender did not open")
                continue
            }
            opened.append(header)
            // The same bytes under another sender's id: its key (cached for the first) does not open it.
            for other in [base, lastDiffers, firstDiffers] where other != id {
                var relabelled = sealed
                relabelled.replaceSubrange(5..<21, with: other)
                #expect(receiver.receive(relabelled) == .unauthentic)
            }
        }
        #expect(opened.map(\.sender) == [ids[0], ids[1], ids[2], ids[0]])

        var windows = AntiReplayWindows()
        let first = ids.map { windows.accept(sender: $0, counter: 7, issuedAt: 5, now: 5, lifetime: 60_000) }
        let again = ids.map { windows.accept(sender: $0, counter: 7, issuedAt: 5, now: 5, lifetime: 60_000) }
        #expect(first == [true, true, true] && again == [false, false, false])
        #expect(windows.windows.count == 3 && windows.windows[lastDiffers]?.highest == 7)
    }
}
