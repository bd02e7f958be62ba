import Testing

@testable import CacheCrypto

/// An HMAC key computes each code on a pooled context it keys again: a context that kept state from its last message,
/// or one shared by two threads, would give a wrong code here.
@Suite("HMAC keys used again and from many tasks at once")
struct HMACKeyReuseTests {
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
}
