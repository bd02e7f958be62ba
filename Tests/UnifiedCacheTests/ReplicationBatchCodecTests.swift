import Testing

@testable import UnifiedCache

@Suite("Replication wire format v4: a batch of clears under one seal")
struct ReplicationBatchCodecTests {
    // Computed, not a stored global: LeakSanitizer reports a lazily initialized test global's arrays as leaked.
    private static var clears: [ReplicationMessage] { ReplicationMessageCodecTests.messages }

    private static var items: [ReplicationBatchCodec.Item] {
        clears.enumerated().map {
            .init(plaintext: ReplicationMessageCodec.encode($0.element), ageOffset: UInt32(clears.count - $0.offset))
        }
    }

    @Test("every kind of clear survives a batch, in order, each with its own age offset")
    func roundTrip() throws {
        let decoded = try #require(
            ReplicationBatchCodec.decode(ReplicationBatchCodec.encode(Self.items), maximumAgeOffset: 60_000))
        #expect(decoded.map(\.message) == Self.clears)
        #expect(decoded.map(\.ageOffset) == Self.items.map { Int64($0.ageOffset) })
    }

    @Test("the layout: a 2-byte count, then each clear's 4-byte offset, 4-byte length and v3 plaintext")
    func layout() {
        let drop = ReplicationMessageCodec.encode(.init(session: nil, clear: .dropLocalCaches))
        #expect(
            ReplicationBatchCodec.encode([.init(plaintext: drop, ageOffset: 258), .init(plaintext: drop, ageOffset: 0)])
                == [0, 2, 0, 0, 1, 2, 0, 0, 0, 2, 0, 12, 0, 0, 0, 0, 0, 0, 0, 2, 0, 12])
    }

    @Test("every truncation, a trailing byte, a zero or forged count, an offset past the lifetime decode to nil")
    func totalDecoder() {
        let bytes = ReplicationBatchCodec.encode(Self.items)
        for length in 0..<bytes.count {
            #expect(ReplicationBatchCodec.decode(Array(bytes.prefix(length)), maximumAgeOffset: 60_000) == nil)
        }
        #expect(ReplicationBatchCodec.decode(bytes + [0], maximumAgeOffset: 60_000) == nil)
        #expect(ReplicationBatchCodec.decode([0, 0], maximumAgeOffset: 60_000) == nil)
        var forgedCount = bytes
        forgedCount[1] += 1
        #expect(ReplicationBatchCodec.decode(forgedCount, maximumAgeOffset: 60_000) == nil)
        var overCap = bytes
        (overCap[0], overCap[1]) = (0x04, 0x01)  // 1,025 clears
        #expect(ReplicationBatchCodec.decode(overCap, maximumAgeOffset: 60_000) == nil)
        // The first clear is the oldest, clears.count ms before the batch's issued-at.
        #expect(ReplicationBatchCodec.decode(bytes, maximumAgeOffset: Int64(Self.clears.count) - 1) == nil)
        #expect(ReplicationBatchCodec.decode(bytes, maximumAgeOffset: Int64(Self.clears.count)) != nil)
    }

    @Test("a batch whose clear does not decode is refused whole")
    func undecodableClear() {
        var items = Self.items
        items[3].plaintext = [0, 99]  // a kind this replica does not know
        #expect(ReplicationBatchCodec.decode(ReplicationBatchCodec.encode(items), maximumAgeOffset: 60_000) == nil)
    }
}
