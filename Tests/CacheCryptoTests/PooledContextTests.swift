import Testing

@testable import CacheCrypto

/// HMAC and AES-256-GCM keys run each operation on a pooled OpenSSL context they start over: a context that kept state
/// from its last message (or a refused open), or one shared by two threads, would give a wrong answer here.
@Suite("Keys whose OpenSSL contexts are used again, and from many tasks at once")
struct PooledContextTests {
    private static let jefe = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    private static let longKey = "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"

    @Test("one key, messages of different lengths in turn, gives RFC 4231's code for each every time")
    func alternatingMessages() {
        let key = HMACKey(key: Array("Jefe".utf8))
        let other = Array("a longer message that leaves more state in the context, if any were left".utf8)
        let expectedOther = hex(HMACKey.code(for: other, key: Array("Jefe".utf8)))
        for _ in 0..<50 {
            #expect(hex(key.code(for: Array("what do ya want for nothing?".utf8))) == Self.jefe)
            #expect(hex(key.code(for: other)) == expectedOther)
            #expect(hex(key.code(for: [])) == hex(HMACKey.code(for: [], key: Array("Jefe".utf8))))
        }
    }

    @Test("many tasks hashing with one key at once each get RFC 4231's code")
    func concurrentUse() async {
        let key = HMACKey(key: [UInt8](repeating: 0xaa, count: 131))
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    (0..<200).reduce(0) { count, _ in count + (hex(key.code(for: message)) == Self.longKey ? 0 : 1) }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test("one AES-256-GCM key sealing and opening in turn, with refused opens between, gives the GCM vector each time")
    func gcmAlternating() {
        let vector = GCMCase16()
        let (key, nonce, plaintext, aad, expected) = (
            vector.key, vector.nonce, vector.plaintext, vector.aad, vector.sealed
        )
        for round in 0..<50 {
            var sealed: [UInt8] = []
            key.seal(plaintext, nonce: nonce, authenticating: aad, appendingTo: &sealed)
            #expect(hex(sealed) == expected)
            var flipped = sealed
            flipped[round % flipped.count] ^= 0x01
            #expect(key.open(flipped, nonce: nonce, authenticating: aad) == nil)
            #expect(key.open(sealed, nonce: nonce, authenticating: aad) == plaintext)
            #expect(key.open(sealed, nonce: nonce, authenticating: aad + [0]) == nil)
            var short: [UInt8] = []
            key.seal([1, 2, 3], nonce: nonce, authenticating: [], appendingTo: &short)
            #expect(key.open(short, nonce: nonce, authenticating: []) == [1, 2, 3])
        }
    }

    @Test("many tasks sealing and opening with one AES-256-GCM key at once each get their own plaintext back")
    func gcmConcurrentUse() async {
        let key = AES256GCMKey(key: SecureRandom.bytes(32))
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<32 {
                group.addTask {
                    var failures = 0
                    for round in 0..<100 {
                        let plaintext = [UInt8](repeating: UInt8(task), count: 1 + (task * 7 + round) % 300)
                        let nonce = SecureRandom.bytes(12)
                        var sealed: [UInt8] = []
                        key.seal(plaintext, nonce: nonce, authenticating: [UInt8(round)], appendingTo: &sealed)
                        if key.open(sealed, nonce: nonce, authenticating: [UInt8(round)]) != plaintext { failures += 1 }
                        if key.open(sealed, nonce: nonce, authenticating: [UInt8(round &+ 1)]) != nil { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
