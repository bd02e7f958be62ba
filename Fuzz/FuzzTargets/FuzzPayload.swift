import Foundation

@testable import UnifiedCache

/// The one place where fuzzed plaintext becomes what a seam delivers. The hub only decodes what opens with the
/// fleet secret, so these functions seal the plaintext with the harness's test secret, as a replica (or someone
/// holding the key) would: the fuzzer explores the decoders behind the seal rather than the seal.
enum FuzzPayload {
    /// The test secret of every harness (replication and the second level).
    static let secret = Array("fuzz-harness-fleet-secret-0123456789".utf8)
    /// The generation every harness read reports (not of the Redis `<epoch>.<gen>` form, so never compared).
    static let generation = SecondLevelGeneration(token: "fuzz")
    /// The harness store's key prefix, bound into every sealed value.
    static let keyPrefix = "fuzz:"

    // A sealer of its own, as another replica's would be (its own sender id and counter).
    private static let secondLevelSealing: SecondLevelSealing = {
        do {
            return SecondLevelSealing(secret: try SecondLevelSecret(secret))
        } catch {
            fatalError("The fuzz test secret is refused: \(error)")
        }
    }()

    /// The bytes the harness's second-level store returns for a read of `key`: the plaintext sealed for that key,
    /// kind and ``generation``.
    static func secondLevelValue(
        _ plaintext: [UInt8], for key: SecondLevelKey, kind: SecondLevelNames.Kind
    ) -> [UInt8] {
        secondLevelSealing.seal(
            plaintext,
            for: .init(
                keyPrefix: keyPrefix, namespace: key.namespace.name, kind: kind.rawValue, name: key.name,
                generation: generation.token))
    }

    /// The payload the harness's transport delivers: the plaintext sealed by `sealer` (another replica's), issued
    /// now.
    static func replicationPayload(_ plaintext: [UInt8], sealer: ReplicationSealer) -> [UInt8] {
        var payload: [UInt8] = []
        let issuedAt = Int64(Date().timeIntervalSince1970 * 1_000)
        sealer.seal(plaintext, issuedAt: issuedAt) { payload = $0 }
        return payload
    }
}
