import CacheCore
import Testing

@testable import UnifiedCache

/// A received clear is checked when its message is admitted and decoded only when it is applied (or never, when it
/// names a session not held here): the check must refuse exactly what decoding refuses, and find the session name
/// where decoding reads it.
@Suite("Checking a received clear without decoding it")
struct ReplicationClearCheckTests {
    private static let name = String(repeating: "0123456789abcdef", count: 4)

    private static var messages: [ReplicationMessage] {
        ReplicationMessageCodecTests.messages + [
            .init(session: name, clear: .domain(name: "balances", reason: "custom(bus-t1)")),
            .init(session: "ab12", clear: .account("ünï")),
            // A clear of every session that names one all the same: applied here whatever the name.
            .init(session: name, clear: .domainsInEverySession(names: ["balances"], reason: "manual")),
            .init(session: name, clear: .dropLocalCaches),
            .init(session: name, clear: .valueTagsInEveryScope(tags: ["a"])),
        ]
    }

    @Test("every truncation and every single-byte change of every kind: checked exactly when it decodes")
    func checkAgreesWithDecode() {
        for message in Self.messages {
            let bytes = ReplicationMessageCodec.encode(message)
            #expect(ReplicationMessageCodec.check(bytes[...]) != nil)
            for length in 0..<bytes.count {
                #expect(ReplicationMessageCodec.check(bytes[..<length]) == nil)
            }
            #expect(ReplicationMessageCodec.check((bytes + [0])[...]) == nil)
            for index in bytes.indices {
                for value: UInt8 in [0, 1, 2, 0x28, 0x7F, 0x80, 0xC3, 0xFF] where value != bytes[index] {
                    var changed = bytes
                    changed[index] = value
                    let checked = ReplicationMessageCodec.check(changed[...]) != nil
                    #expect(checked == (ReplicationMessageCodec.decode(changed) != nil), "byte \(index) = \(value)")
                }
            }
        }
    }

    @Test("the session name is found where decoding reads it, for clears of one session only")
    func sessionRange() throws {
        for message in Self.messages {
            let bytes = ReplicationMessageCodec.encode(message)
            let checked = try #require(ReplicationMessageCodec.check(bytes[...]))
            switch message.clear {
            case .domainsInEverySession, .dropLocalCaches, .valueTagsInEveryScope:
                #expect(checked.session == nil)
            default:
                let found = checked.session.map { String(decoding: bytes[$0], as: UTF8.self) }
                #expect(found == message.session)
            }
        }
    }

    @Test("a batch is checked as it is decoded: each clear's range, offset and session name; refused whole")
    func batchCheck() throws {
        let items = Self.messages.enumerated().map {
            ReplicationBatchCodec.Item(
                plaintext: ReplicationMessageCodec.encode($0.element), ageOffset: UInt32($0.offset))
        }
        let bytes = ReplicationBatchCodec.encode(items)
        let checked = try #require(ReplicationBatchCodec.check(bytes, maximumAgeOffset: 60_000))
        #expect(checked.map { ReplicationMessageCodec.decode(bytes[$0.range]) } == Self.messages)
        #expect(checked.map(\.ageOffset) == items.map { Int64($0.ageOffset) })
        for length in 0..<bytes.count {
            #expect(ReplicationBatchCodec.check(Array(bytes.prefix(length)), maximumAgeOffset: 60_000) == nil)
        }
        var broken = items
        broken[2].plaintext = [0, 99]
        #expect(ReplicationBatchCodec.check(ReplicationBatchCodec.encode(broken), maximumAgeOffset: 60_000) == nil)
    }

    @Test("a wire name read from bytes equals the one registered from the hash's string; other lengths have none")
    func wireNames() throws {
        let bytes = Array(Self.name.utf8)
        let fromBytes = try #require(bytes.withUnsafeBytes { SessionWireName($0) })
        #expect(fromBytes == SessionWireName(Self.name))
        #expect(SessionWireName(String(Self.name.dropLast()) + "e") != fromBytes)
        #expect(SessionWireName(String(Self.name.dropFirst()) + "0") != fromBytes)
        #expect(SessionWireName("ab12") == nil)
        #expect(SessionWireName(Self.name + "0") == nil)
        #expect(Set([fromBytes, SessionWireName(Self.name)]).count == 1)
    }

    @Test("a reason read from its wire name: every known name, custom names, and names that are not ASCII")
    func reasons() {
        let known: [ClearReason] = [
            .logout, .sessionExpired, .principalChanged, .sessionEvicted, .accountSwitch, .userRefresh, .mutation,
            .settingsChanged, .memoryPressure, .manual, .custom("bus-t17"), .custom(""), .custom("a(b)"),
            .custom("café"), .custom("\r\n"),
        ]
        for reason in known {
            #expect(ClearReason(replicatedName: reason.replicatedName) == reason)
        }
        #expect(ClearReason(replicatedName: "custom(") == .custom("custom("))
        #expect(ClearReason(replicatedName: "custom(x") == .custom("custom(x"))
        #expect(ClearReason(replicatedName: "logout ") == .custom("logout "))
        #expect(ClearReason(replicatedName: "Logout") == .custom("Logout"))
        #expect(ClearReason(replicatedName: "café") == .custom("café"))
        // Not ASCII: read as strings, so a name canonically equal to a known one is that one.
        #expect(ClearReason(replicatedName: "custom(e\u{301})") == .custom("\u{E9}"))
    }
}
