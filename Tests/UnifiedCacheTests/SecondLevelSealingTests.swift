import CacheCore
import Testing

@testable import UnifiedCache

/// The sealed value format, the names it is bound to, and the generation guard, without a store.
@Suite("Second-level values are sealed and bound to where they were written")
struct SecondLevelSealingTests {
    static let old = Array(repeating: UInt8(0x11), count: 32)
    static let new = Array(repeating: UInt8(0x22), count: 32)
    static let binding = SecondLevelSealing.Binding(
        keyPrefix: "ucache:l2:", namespace: "ns-alice", kind: "rest", name: "entry-1", generation: "0.3")
    static let plaintext = Array("an answer for alice".utf8)

    static func sealing(_ keys: [[UInt8]]) throws -> SecondLevelSealing {
        SecondLevelSealing(ring: try FleetKeyRing(masters: keys, name: "test"))
    }

    @Test("a sealed value opens where it was written and nowhere else (prefix, namespace, kind, name, generation)")
    func bindings() throws {
        let sealing = try Self.sealing([Self.new])
        let value = sealing.seal(Self.plaintext, for: Self.binding)
        #expect(try sealing.open(value, for: Self.binding).get() == Self.plaintext)
        #expect(!value.contains(subsequence: Array("alice".utf8)))

        var moved: [SecondLevelSealing.Binding] = []
        for change in 0..<5 {
            var other = Self.binding
            switch change {
            case 0: other.keyPrefix = "other:l2:"
            case 1: other.namespace = "ns-bob"
            case 2: other.kind = "graphql"
            case 3: other.name = "entry-2"
            default: other.generation = "0.4"
            }
            moved.append(other)
        }
        for other in moved {
            #expect(throws: SecondLevelSealing.Refusal.unauthentic) { try sealing.open(value, for: other).get() }
        }
    }

    @Test("every single flipped bit, anywhere in the value, is refused")
    func everyFlippedBit() throws {
        let sealing = try Self.sealing([Self.new])
        let value = sealing.seal(Self.plaintext, for: Self.binding)
        var opened = 0
        for index in value.indices {
            for bit in 0..<8 {
                var altered = value
                altered[index] ^= UInt8(1 << bit)
                if case .success = sealing.open(altered, for: Self.binding) { opened += 1 }
            }
        }
        #expect(opened == 0)
        #expect(value.count == Self.plaintext.count + SecondLevelSealing.overhead)
    }

    @Test("values that are not sealed values of this format are format rejections")
    func formats() throws {
        let sealing = try Self.sealing([Self.new])
        let value = sealing.seal(Self.plaintext, for: Self.binding)
        let previousRelease = Array("UC2L".utf8) + [1, 1] + Array(repeating: 0, count: 60)
        for bad in [[], Array(value.prefix(SecondLevelSealing.overhead - 1)), previousRelease] {
            #expect(throws: SecondLevelSealing.Refusal.format) { try sealing.open(bad, for: Self.binding).get() }
        }
        var otherVersion = value
        otherVersion[4] = 2
        #expect(throws: SecondLevelSealing.Refusal.format) { try sealing.open(otherVersion, for: Self.binding).get() }
    }

    @Test("nonces never repeat: one sender id per process, a counter that only grows")
    func counterNonces() throws {
        let sealing = try Self.sealing([Self.new])
        let values = (0..<100).map { _ in sealing.seal(Self.plaintext, for: Self.binding) }
        let senders = Set(values.map { Array($0[9..<25]) })
        let counters = values.map { $0[25..<33].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        #expect(senders.count == 1)
        #expect(counters == Array(0..<100))
        #expect(Set(values.map { Array($0[33...]) }).count == 100)
        let other = try Self.sealing([Self.new]).seal(Self.plaintext, for: Self.binding)
        #expect(Array(other[9..<25]) != Array(values[0][9..<25]))  // another process, another sender key
    }

    @Test("rotation: sealed with the current key, opened with any key of the ring; an unknown key is refused")
    func rotation() throws {
        let before = try Self.sealing([Self.old])
        let during = try Self.sealing([Self.new, Self.old])
        let lagging = try Self.sealing([Self.old, Self.new])
        let after = try Self.sealing([Self.new])
        let fromBefore = before.seal(Self.plaintext, for: Self.binding)
        let fromDuring = during.seal(Self.plaintext, for: Self.binding)

        #expect(try during.open(fromBefore, for: Self.binding).get() == Self.plaintext)
        #expect(try lagging.open(fromDuring, for: Self.binding).get() == Self.plaintext)
        #expect(try after.open(fromDuring, for: Self.binding).get() == Self.plaintext)
        #expect(throws: SecondLevelSealing.Refusal.unauthentic) { try after.open(fromBefore, for: Self.binding).get() }
    }

    @Test("namespace names are byte-identical to the previous release's; entry and tag names include the namespace")
    func names() throws {
        let names = SecondLevelNames(secret: try SecondLevelSecret(Array(SecondLevelHarness.secret.utf8)))
        // Computed independently (Python's hmac: HKDF-SHA256 then HMAC-SHA256, first 16 bytes, base64url).
        #expect(names.namespace(of: .shared).name == "Sb5HOBVEOXrXpSetPCq4YQ")
        #expect(names.namespace(of: .session("session-alice")).name == "bcUWqEfeB0nd4-ZjCqNtvw")

        let alice = names.namespace(of: .session("alice"))
        let bob = names.namespace(of: .session("bob"))
        #expect(names.key(.rest, "accounts", in: alice).name != names.key(.rest, "accounts", in: bob).name)
        #expect(names.key(.rest, "accounts", in: alice).name != names.key(.graphQL, "accounts", in: alice).name)
        #expect(names.tag(.account("101"), in: alice) != names.tag(.account("101"), in: bob))
    }

    @Test("clears reach the names under every key of the ring, current first")
    func namesUnderEveryKey() throws {
        let during = try SecondLevelSecret(keys: [Self.new, Self.old])
        let lagging = try SecondLevelSecret(keys: [Self.old, Self.new])
        let duringNames = during.everyKey.map { SecondLevelNames(secret: $0).namespace(of: .session("alice")) }
        let laggingNames = lagging.everyKey.map { SecondLevelNames(secret: $0).namespace(of: .session("alice")) }
        #expect(duringNames.count == 2)
        #expect(duringNames[0] != duringNames[1])
        #expect(duringNames == laggingNames.reversed())
    }

    @Test("the generation guard refuses hits under a generation set back, or the same one after a clear")
    func generationGuard() {
        let generations = SecondLevelGenerationGuard(memory: .seconds(3_600))
        let alice = SecondLevelNamespace("alice")
        func token(_ text: String) -> SecondLevelGeneration { SecondLevelGeneration(token: text) }

        #expect(generations.admits(token("2.5"), in: alice, isHit: true))
        #expect(!generations.admits(token("2.4"), in: alice, isHit: true))
        #expect(!generations.admits(token("1.9"), in: alice, isHit: true))  // the fleet epoch set back
        #expect(generations.admits(token("2.4"), in: alice, isHit: false))  // a miss serves nothing
        #expect(generations.admits(token("2.5"), in: alice, isHit: true))

        generations.cleared(alice)
        #expect(!generations.admits(token("2.5"), in: alice, isHit: true))
        #expect(generations.admits(token("2.6"), in: alice, isHit: true))
        #expect(generations.admits(token("2.6"), in: alice, isHit: true))

        generations.clearedAll()
        #expect(!generations.admits(token("2.6"), in: alice, isHit: true))
        #expect(generations.admits(token("3.6"), in: alice, isHit: true))
        #expect(generations.verdict(token("opaque"), in: alice, isHit: true) == .malformed)  // parsed strictly
        #expect(generations.admits(token("0.0"), in: SecondLevelNamespace("bob"), isHit: true))
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
