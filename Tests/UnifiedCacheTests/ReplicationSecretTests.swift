import Foundation
import Testing

@testable import UnifiedCache

@Suite("Replication secret: session hashes, sealing, key forms")
struct ReplicationSecretTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("a session hash is stable for one secret, differs across secrets, and never contains the id")
    func sessionHash() throws {
        let fleet = try ReplicationSecret(Array("fleet-secret-0123456789-0123456789".utf8))
        let sameFleet = try ReplicationSecret(Array("fleet-secret-0123456789-0123456789".utf8))
        let otherFleet = try ReplicationSecret(Array("another-secret-98765432-98765432".utf8))
        let hash = fleet.sessionHash(of: "session-cookie-abc")
        #expect(hash == sameFleet.sessionHash(of: "session-cookie-abc"))
        #expect(hash != otherFleet.sessionHash(of: "session-cookie-abc"))
        #expect(hash != fleet.sessionHash(of: "session-cookie-abd"))
        #expect(hash.count == 64 && !hash.contains("abc"))
    }

    @Test("a session hash is written as two lowercase hex digits a byte, as every replica of the fleet writes it")
    func sessionHashDigits() throws {
        let every = (0...255).map { UInt8($0) }
        #expect(ReplicationSecret.hex(every) == every.map { String(format: "%02x", $0) }.joined())
        #expect(ReplicationSecret.hex([]) == "")
        let hash = try ReplicationSecret(Array("fleet-secret-0123456789-0123456789".utf8)).sessionHash(of: "s")
        #expect(hash.utf8.count == 64 && hash.utf8.allSatisfy { Array("0123456789abcdef".utf8).contains($0) })
    }

    @Test("a sealed message opens with the same secret, hides its content, and is rejected when altered or foreign")
    func sealing() throws {
        let key = Array("fleet-secret-0123456789-0123456789".utf8)
        let sender = ReplicationSealer(secret: try ReplicationSecret(key))
        let receiver = ReplicationSealer(secret: try ReplicationSecret(key))
        let plaintext = Array("account ACC-TOKEN-SECRET".utf8)
        var sealed: [[UInt8]] = []
        sender.seal(plaintext, issuedAt: 1_700_000_000_123) { sealed.append($0) }
        sender.seal(plaintext, issuedAt: 1_700_000_000_456) { sealed.append($0) }

        let first = ReplicationEnvelope(
            keyID: sender.secret.keyID(at: 0), sender: sender.sender, counter: 1, issuedAt: 1_700_000_000_123)
        #expect(receiver.open(sealed[0]) == .message(first, plaintext))
        guard case .message(let second, _) = receiver.open(sealed[1]) else {
            Issue.record("the second message did not open")
            return
        }
        #expect(second.counter == 2 && second.issuedAt == 1_700_000_000_456)
        #expect(sealed[0][0] == 3 && sealed[0].count == ReplicationEnvelope.headerLength + plaintext.count + 16)
        #expect(!String(decoding: sealed[0], as: UTF8.self).contains("ACC-TOKEN-SECRET"))
        #expect(sender.open(sealed[0]) == .own)

        for offset in [5, 25, 30, sealed[0].count - 20, sealed[0].count - 1] {  // sender, counter, issued-at, body, tag
            var tampered = sealed[0]
            tampered[offset] ^= 0x01
            #expect(receiver.open(tampered) == .unauthentic)
        }
        #expect(receiver.open(Array(sealed[0].dropLast())) == .unauthentic)
        #expect(receiver.open(Array(sealed[0].prefix(ReplicationEnvelope.minimumLength - 1))) == .malformed)
        var oldFormat = sealed[0]
        oldFormat[0] = 2
        #expect(receiver.open(oldFormat) == .malformed)
        let foreign = ReplicationSealer(secret: try ReplicationSecret(Array("another-secret-98765432-98765432".utf8)))
        #expect(foreign.open(sealed[0]) == .unauthentic)
    }

    @Test("a ring mid-rotation opens messages sealed under either key and names sessions under both")
    func rotation() throws {
        let old = Array("old-fleet-secret-0123456789-01234".utf8)
        let new = Array("new-fleet-secret-0123456789-01234".utf8)
        let onOld = ReplicationSealer(secret: try ReplicationSecret(keys: [old]))
        let rotating = ReplicationSealer(secret: try ReplicationSecret(keys: [new, old]))
        let onNew = ReplicationSealer(secret: try ReplicationSecret(keys: [new]))
        var fromOld: [UInt8] = []
        var fromRotating: [UInt8] = []
        onOld.seal([1, 2, 3], issuedAt: 0) { fromOld = $0 }
        rotating.seal([4, 5, 6], issuedAt: 0) { fromRotating = $0 }
        #expect(rotating.open(fromOld) != .unauthentic && onNew.open(fromRotating) != .unauthentic)
        #expect(onOld.open(fromRotating) == .unauthentic)  // sealed with the new key, which `onOld` lacks
        let hashes = rotating.secret.sessionHashes(of: "session-x")
        #expect(hashes == [onNew.secret.sessionHash(of: "session-x"), onOld.secret.sessionHash(of: "session-x")])
    }

    @Test("a key shorter than 32 bytes and a plain-text secret are refused; an unset variable means no secret")
    func secretForms() throws {
        #expect(throws: UnifiedCacheError.self) { try ReplicationSecret(Array("0123456789abcdef0123456789abcde".utf8)) }
        #expect(try ReplicationSecret(environment: [:]) == nil)
        let hexKey = "hex:" + String(repeating: "a1", count: 32)
        let base64Key = "base64:" + Data(repeating: 7, count: 32).base64EncodedString()
        #expect(try ReplicationSecret(environment: ["UCACHE_REPLICATION_SECRET": hexKey]) != nil)
        #expect(try ReplicationSecret(environment: ["UCACHE_REPLICATION_SECRET": base64Key]) != nil)
        #expect(try ReplicationSecret(environment: ["UCACHE_REPLICATION_SECRET": "\(base64Key),\(hexKey)"]) != nil)
        let refused = [
            "correct horse battery staple and a long passphrase",  // plain text, however long
            "hex:" + String(repeating: "a1", count: 31),  // 31 bytes
            "base64:" + Data(repeating: 7, count: 24).base64EncodedString(),
            "hex:zz" + String(repeating: "a1", count: 32),
            "\(hexKey),\(hexKey)",  // the same key twice
            "\(hexKey),",
        ]
        for text in refused {
            do {
                _ = try ReplicationSecret(environment: ["UCACHE_REPLICATION_SECRET": text])
                Issue.record("accepted a bad secret form")
            } catch {
                #expect(error.code == .invalidSettings && error.place == "UCACHE_REPLICATION_SECRET")
                #expect(!error.description.contains("a1a1") && !error.description.contains("horse"))
            }
        }
    }

    @Test("neither description, dump nor reflection shows key material")
    func noSecretThroughReflection() throws {
        let key = Array("fleet-secret-0123456789-0123456789".utf8)
        let secret = try ReplicationSecret(key)
        let names = try SecondLevelSecret(key)
        for value in [secret as Any, names as Any] {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [dumped, String(reflecting: value), String(describing: value)] {
                #expect(!text.contains("fleet-secret") && !text.contains("0x"))
                #expect(!text.contains("102, 108, 101, 101, 116"))  // the key's first bytes as an array
                #expect(text.count < 200)
            }
        }
    }

    @Test("a clear reason survives its wire name, custom names included")
    func reasonNames() {
        let reasons: [ClearReason] = [
            .logout, .sessionExpired, .accountSwitch, .userRefresh, .mutation, .settingsChanged, .memoryPressure,
            .manual, .custom("replicationGap"),
        ]
        for reason in reasons { #expect(ClearReason(replicatedName: reason.replicatedName) == reason) }
    }
}
