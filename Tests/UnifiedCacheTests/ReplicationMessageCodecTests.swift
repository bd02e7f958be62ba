import Foundation
import Testing

@testable import UnifiedCache

@Suite("Replication wire format v3: message encoding and replay bookkeeping")
struct ReplicationMessageCodecTests {
    // Computed, not a stored static: LeakSanitizer reports the lazily made global array of enums as a leak.
    static var messages: [ReplicationMessage] {
        [
            .init(session: "ab12", clear: .everything(reason: "logout", endsSession: true)),
            .init(session: "ab12", clear: .everything(reason: "custom(x)", endsSession: false)),
            .init(session: "ab12", clear: .rest),
            .init(session: "ab12", clear: .graphQL),
            .init(session: "ab12", clear: .timestamps),
            .init(session: "ab12", clear: .uplifted),
            .init(session: "ab12", clear: .query("query Balances { a }")),
            .init(session: "ab12", clear: .account("ACC-ü-101")),
            .init(session: "ab12", clear: .domain(name: "balances", reason: "manual")),
            .init(
                session: "ab12",
                clear: .restMutation(
                    method: "POST", path: "/api/transfers",
                    entities: [
                        .init(record: "Account:1", fields: ["balance", ""]), .init(record: "Account:2", fields: nil),
                    ])),
            .init(session: "ab12", clear: .graphQLMutation(records: ["Account:1", "Card:9"])),
            .init(
                session: nil, clear: .domainsInEverySession(names: ["balances", "cards"], reason: "settingsChanged")),
            .init(session: nil, clear: .dropLocalCaches),
            .init(session: "", clear: .restMutation(method: "", path: "", entities: [])),
            .init(session: "ab12", clear: .values(key: "dashboard", tags: ["accounts", "cards"])),
            .init(session: "ab12", clear: .values(key: nil, tags: ["accounts"])),
            .init(session: nil, clear: .valueTagsInEveryScope(tags: ["accounts"])),
        ]
    }

    @Test("the value door's kinds come after the older ones, whose bytes stay as they were")
    func valueKindsAreAdditive() {
        #expect(ReplicationMessageCodec.encode(.init(session: nil, clear: .dropLocalCaches)) == [0, 12])
        #expect(ReplicationMessageCodec.decode([0, 12]) == .init(session: nil, clear: .dropLocalCaches))
        #expect(
            ReplicationMessageCodec.encode(.init(session: nil, clear: .values(key: "k", tags: ["t"])))
                == [0, 13, 1, 0, 0, 0, 1, 0x6B, 0, 0, 0, 1, 0, 0, 0, 1, 0x74])
        #expect(
            ReplicationMessageCodec.encode(.init(session: nil, clear: .valueTagsInEveryScope(tags: [])))
                == [0, 14, 0, 0, 0, 0])
        #expect(ReplicationMessageCodec.decode([0, 15]) == nil)  // a kind newer than this replica
    }

    @Test("every kind of clear survives encoding and decoding")
    func roundTrip() {
        for message in Self.messages {
            #expect(ReplicationMessageCodec.decode(ReplicationMessageCodec.encode(message)) == message)
        }
    }

    @Test("every truncation, a trailing byte, an unknown kind or flag, a forged count and bad UTF-8 decode to nil")
    func totalDecoder() {
        for message in Self.messages {
            let bytes = ReplicationMessageCodec.encode(message)
            for length in 0..<bytes.count {
                #expect(ReplicationMessageCodec.decode(Array(bytes.prefix(length))) == nil)
            }
            #expect(ReplicationMessageCodec.decode(bytes + [0]) == nil)
        }
        #expect(ReplicationMessageCodec.decode([0, 99]) == nil)  // no session, unknown kind
        #expect(ReplicationMessageCodec.decode([2, 3]) == nil)  // a session flag that is neither 0 nor 1
        #expect(ReplicationMessageCodec.decode([0, 6, 0xFF, 0xFF, 0xFF, 0xFF, 65]) == nil)  // a query of 4 GiB
        #expect(ReplicationMessageCodec.decode([0, 10, 0x7F, 0xFF, 0xFF, 0xFF]) == nil)  // 2^31 records
        #expect(ReplicationMessageCodec.decode([0, 6, 0, 0, 0, 2, 0xC3, 0x28]) == nil)  // invalid UTF-8
        #expect(
            ReplicationMessageCodec.decode([0, 6, 0, 0, 0, 2, 0x68, 0x69]) == .init(session: nil, clear: .query("hi")))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let noise = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...12) }
            _ = ReplicationMessageCodec.decode(noise)  // never traps
        }
    }

    @Test("durations and dates become milliseconds without overflow; the replay rules are validated")
    func ruleConversions() throws {
        #expect(ReplayRules.milliseconds(.seconds(60)) == 60_000)
        #expect(ReplayRules.milliseconds(.milliseconds(1_500)) == 1_500)
        #expect(ReplayRules.milliseconds(.seconds(Int64.max)) == 1 << 53)
        #expect(ReplayRules.milliseconds(.seconds(Int64.min)) == -(1 << 53))
        #expect(ReplayRules.milliseconds(since1970: Date(timeIntervalSince1970: 1.5)) == 1_500)
        #expect(ReplayRules.milliseconds(since1970: .distantFuture) > 0)
        #expect(ReplayRules.milliseconds(since1970: Date(timeIntervalSince1970: .infinity)) == 0)

        let secret = try ReplicationSecret(Array("fleet-secret-0123456789-0123456789".utf8))
        let good = ReplicationConfiguration(transport: UnusedTransport(), secret: secret)
        try good.validate()
        for bad in [
            ReplicationConfiguration(transport: UnusedTransport(), secret: secret, maximumPayloadBytes: 100),
            ReplicationConfiguration(transport: UnusedTransport(), secret: secret, messageLifetime: .zero),
            ReplicationConfiguration(
                transport: UnusedTransport(), secret: secret, messageLifetime: .seconds(1),
                clockSkewAllowance: .seconds(2)),
        ] {
            #expect(throws: UnifiedCacheError.self) { try bad.validate() }
        }
    }
}

/// A transport that is never started: the configuration's rules are checked before any transport runs.
private struct UnusedTransport: ReplicationTransport {
    func start(receiver: any ReplicationReceiver) {}
    func publish(_ payload: [UInt8]) {}
    func shutdown() async {}
}
