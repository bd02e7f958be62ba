import Foundation
import Testing

@testable import UnifiedCache

@Suite("Replication secret: HMAC-SHA256, session hashes, sealing")
struct ReplicationSecretTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("SHA-256 matches the FIPS 180-4 examples (empty, abc, one million a)")
    func sha256Vectors() {
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(
        "HMAC-SHA256 matches the RFC 4231 test vectors",
        arguments: [
            (
                [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                Array(1...25), [UInt8](repeating: 0xcd, count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array(
                    ("This is a test using a larger than block-size key and a larger than block-size data. The key needs"
                        + " to be hashed before being used by the HMAC algorithm.").utf8),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ])
    func hmacVectors(key: [UInt8], data: [UInt8], expected: String) {
        #expect(hex(HMACSHA256.authenticationCode(for: data, key: key)) == expected)
    }

    @Test("RFC 4231 case 5: the truncated 128-bit output matches")
    func hmacTruncated() {
        let code = HMACSHA256.authenticationCode(
            for: Array("Test With Truncation".utf8), key: [UInt8](repeating: 0x0c, count: 20))
        #expect(hex(Array(code.prefix(16))) == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test("a session hash is stable for one secret, differs across secrets, and never contains the id")
    func sessionHash() throws {
        let fleet = try ReplicationSecret(Array("fleet-secret-0123456789".utf8))
        let sameFleet = try ReplicationSecret(Array("fleet-secret-0123456789".utf8))
        let otherFleet = try ReplicationSecret(Array("another-secret-98765432".utf8))
        let hash = fleet.sessionHash(of: "session-cookie-abc")
        #expect(hash == sameFleet.sessionHash(of: "session-cookie-abc"))
        #expect(hash != otherFleet.sessionHash(of: "session-cookie-abc"))
        #expect(hash != fleet.sessionHash(of: "session-cookie-abd"))
        #expect(hash.count == 64 && !hash.contains("abc"))
    }

    @Test("a sealed message opens with the same secret, hides its content, and is rejected when altered or foreign")
    func sealing() throws {
        let fleet = try ReplicationSecret(Array("fleet-secret-0123456789".utf8))
        let plaintext = Array(#"{"clear":{"account":{"_0":"ACC-TOKEN-SECRET"}}}"#.utf8)
        let sealed = fleet.seal(plaintext)
        #expect(fleet.open(sealed) == plaintext)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("ACC-TOKEN-SECRET"))
        #expect(fleet.seal(plaintext) != sealed)  // a fresh nonce every time

        var tampered = sealed
        tampered[20] ^= 0x01
        #expect(fleet.open(tampered) == nil)
        #expect(fleet.open(Array(sealed.dropLast())) == nil)
        #expect(try ReplicationSecret(Array("another-secret-98765432".utf8)).open(sealed) == nil)
    }

    @Test("a secret shorter than 16 bytes is refused; an unset variable means no secret")
    func secretLength() throws {
        #expect(throws: UnifiedCacheError.self) { try ReplicationSecret(Array("short".utf8)) }
        #expect(try ReplicationSecret(environment: [:]) == nil)
        #expect(try ReplicationSecret(environment: ["UCACHE_REPLICATION_SECRET": "0123456789abcdef"]) != nil)
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
