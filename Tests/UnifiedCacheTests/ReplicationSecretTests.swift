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

    @Test("a sealed message opens with the same secret, hides its content, and is rejected when altered or foreign")
    func sealing() throws {
        let fleet = try ReplicationSecret(Array("fleet-secret-0123456789-0123456789".utf8))
        let plaintext = Array(#"{"clear":{"account":{"_0":"ACC-TOKEN-SECRET"}}}"#.utf8)
        let sealed = fleet.seal(plaintext)
        #expect(fleet.open(sealed) == plaintext)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("ACC-TOKEN-SECRET"))
        #expect(fleet.seal(plaintext) != sealed)  // a fresh nonce every time

        var tampered = sealed
        tampered[20] ^= 0x01
        #expect(fleet.open(tampered) == nil)
        #expect(fleet.open(Array(sealed.dropLast())) == nil)
        #expect(try ReplicationSecret(Array("another-secret-98765432-98765432".utf8)).open(sealed) == nil)
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
