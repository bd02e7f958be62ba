@testable import UnifiedCache

/// The one place where fuzzed plaintext becomes what a seam delivers. When values and messages are sealed, the
/// hub only decodes what opened with the fleet secret; these functions seal the plaintext with the harness's test
/// secret, so the fuzzer keeps exploring the decoders behind the seal rather than the seal.
enum FuzzPayload {
    /// The test secret of every harness (replication and the second level).
    static let secret = Array("fuzz-harness-fleet-secret-0123456789".utf8)

    /// The bytes the harness's second-level store returns for a read: today the plaintext itself (values are not
    /// sealed).
    static func secondLevelValue(_ plaintext: [UInt8], for key: SecondLevelKey) -> [UInt8] {
        plaintext
    }

    /// The payload the harness's transport delivers: the plaintext sealed with the test secret.
    static func replicationPayload(_ plaintext: [UInt8], secret: ReplicationSecret) -> [UInt8] {
        secret.seal(plaintext)
    }
}
