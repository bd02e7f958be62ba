import Testing

@testable import CacheCrypto

/// The OpenSSL wrappers against published known-answer vectors: a wrapper that passed the wrong length, key or order
/// of arguments to OpenSSL fails here.
@Suite("Known-answer vectors")
struct KnownAnswerTests {
    @Test("SHA-256 matches FIPS 180-2's vectors")
    func sha256() {
        #expect(hex(SHA256Digest.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256Digest.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA256Digest.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("HMAC-SHA256 matches RFC 4231's test cases 1, 2 and 6")
    func hmac() {
        #expect(
            hex(HMACKey.code(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            hex(HMACKey.code(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let longKey = HMACKey(key: [UInt8](repeating: 0xaa, count: 131))
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        #expect(hex(longKey.code(for: message)) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(longKey.code(for: message) == longKey.code(for: message[...]), "a reused key gives the same code")
    }

    @Test("HKDF-SHA256 matches RFC 5869's test cases 1, 2 and 3")
    func hkdf() {
        let case1 = HKDF.sha256(
            key: [UInt8](repeating: 0x0b, count: 22), salt: bytes("000102030405060708090a0b0c"),
            info: bytes("f0f1f2f3f4f5f6f7f8f9"), length: 42)
        #expect(
            hex(case1)
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        let case2 = HKDF.sha256(
            key: Array(0x00...0x4f as ClosedRange<UInt8>), salt: Array(0x60...0xaf as ClosedRange<UInt8>),
            info: Array(0xb0...0xff as ClosedRange<UInt8>), length: 82)
        #expect(
            hex(case2)
                == "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09"
                + "da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87")
        let case3 = HKDF.sha256(key: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [], length: 42)
        #expect(
            hex(case3)
                == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    /// The AES-256 vectors of McGrew and Viega's GCM specification (test cases 13, 14 and 16), as NIST's CAVP uses.
    @Test("AES-256-GCM matches the GCM specification's test cases 13, 14 and 16")
    func aesGCM() throws {
        let zeroKey = AES256GCMKey(key: [UInt8](repeating: 0, count: 32))
        let zeroNonce = [UInt8](repeating: 0, count: 12)
        var sealed: [UInt8] = []
        zeroKey.seal([UInt8](), nonce: zeroNonce, authenticating: [UInt8](), appendingTo: &sealed)
        #expect(hex(sealed) == "530f8afbc74536b9a963b4f1c4cb738b")
        sealed = []
        zeroKey.seal(
            [UInt8](repeating: 0, count: 16), nonce: zeroNonce, authenticating: [UInt8](), appendingTo: &sealed)
        #expect(hex(sealed) == "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")
        #expect(zeroKey.open(sealed, nonce: zeroNonce, authenticating: [UInt8]()) == [UInt8](repeating: 0, count: 16))

        let vector = GCMCase16()
        sealed = []
        vector.key.seal(vector.plaintext, nonce: vector.nonce, authenticating: vector.aad, appendingTo: &sealed)
        #expect(hex(sealed) == vector.sealed)
        #expect(vector.key.open(sealed, nonce: vector.nonce, authenticating: vector.aad) == vector.plaintext)
    }

    @Test("AES-256-GCM refuses a flipped byte, another nonce, other associated data and a short input")
    func aesGCMRefusals() {
        let key = AES256GCMKey(key: SecureRandom.bytes(32))
        let nonce = SecureRandom.bytes(12)
        var sealed: [UInt8] = [0xAA]  // sealing appends after what the output holds
        key.seal(Array("private answer".utf8), nonce: nonce, authenticating: Array("key-1".utf8), appendingTo: &sealed)
        let value = Array(sealed.dropFirst())
        #expect(key.open(value, nonce: nonce, authenticating: Array("key-1".utf8)) == Array("private answer".utf8))
        for index in value.indices {
            var flipped = value
            flipped[index] ^= 0x01
            #expect(key.open(flipped, nonce: nonce, authenticating: Array("key-1".utf8)) == nil)
        }
        #expect(key.open(value, nonce: SecureRandom.bytes(12), authenticating: Array("key-1".utf8)) == nil)
        #expect(key.open(value, nonce: nonce, authenticating: Array("key-2".utf8)) == nil)
        #expect(key.open(value.prefix(15), nonce: nonce, authenticating: Array("key-1".utf8)) == nil)
        #expect(key.open(value, nonce: nonce.prefix(11), authenticating: Array("key-1".utf8)) == nil)
        let otherKey = AES256GCMKey(key: SecureRandom.bytes(32))
        #expect(otherKey.open(value, nonce: nonce, authenticating: Array("key-1".utf8)) == nil)
    }

    @Test("Constant-time comparison tells equal from different bytes")
    func comparison() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(constantTimeEquals([UInt8](), [UInt8]()))
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
}

/// The GCM specification's test case 16 (AES-256, 96-bit nonce, associated data, a plaintext of 60 bytes).
struct GCMCase16 {
    let key = AES256GCMKey(key: bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
    let nonce = bytes("cafebabefacedbaddecaf888")
    let plaintext = bytes(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525"
            + "b16aedf5aa0de657ba637b39")
    let aad = bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    /// Ciphertext, then tag, in hex.
    let sealed =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838"
        + "c5f61e6393ba7a0abcc9f662" + "76fc6ece0f4e1768cddf8853bb2d551b"
}

func bytes(_ hex: String) -> [UInt8] {
    var output: [UInt8] = []
    var iterator = hex.utf8.makeIterator()
    while let high = iterator.next(), let low = iterator.next() {
        output.append(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)!)
    }
    return output
}
