import CacheCrypto
import Foundation
import Testing

@testable import UnifiedCache

@Suite("The second level's entry form: round trip, and anything else is unreadable")
struct SecondLevelCodecTests {
    static var entry: RESTSecondLevelEntry {
        RESTSecondLevelEntry(
            status: 200,
            body: Data(#"{"accounts":[{"id":"acc-1"}]}"#.utf8),
            storedAt: Date(timeIntervalSince1970: 1_700_000_000.25),
            expiresAt: Date(timeIntervalSince1970: 1_700_000_300.25),
            metadata: CacheEntryMetadata(
                timeout: .seconds(300), domains: ["balances", "accountSummary"], accounts: ["acc-1", "tok-1"],
                isUplifted: false,
                validators: CacheValidators(etag: "\"v1\"", lastModified: "Tue, 14 Nov 2023 22:13:20 GMT"),
                entityKeys: ["Account:acc-1"], tags: ["path:/api/accounts"]))
    }

    @Test("an entry decodes to what was encoded, field for field")
    func roundTrip() throws {
        let bytes = SecondLevelEntryCodec.encode(Self.entry)
        #expect(SecondLevelEntryCodec.decode(bytes) == Self.entry)
    }

    @Test("an entry that never expires, without validators and with an empty body round-trips too")
    func roundTripOfTheSparseForm() {
        let entry = RESTSecondLevelEntry(
            status: 204, body: Data(), storedAt: Date(timeIntervalSince1970: 5), expiresAt: nil,
            metadata: CacheEntryMetadata(timeout: .never, isUplifted: true))
        #expect(SecondLevelEntryCodec.decode(SecondLevelEntryCodec.encode(entry)) == entry)
    }

    @Test("every truncation of a value is unreadable, never a crash")
    func truncatedValues() {
        let bytes = SecondLevelEntryCodec.encode(Self.entry)
        for length in 0..<bytes.count {
            #expect(SecondLevelEntryCodec.decode(Array(bytes.prefix(length))) == nil, "length \(length)")
        }
    }

    @Test("another magic, another version, or bytes left over make a value unreadable")
    func foreignValues() {
        let bytes = SecondLevelEntryCodec.encode(Self.entry)
        var magic = bytes
        magic[0] ^= 0xFF
        var version = bytes
        version[4] = 2
        #expect(SecondLevelEntryCodec.decode(magic) == nil)
        #expect(SecondLevelEntryCodec.decode(version) == nil)
        #expect(SecondLevelEntryCodec.decode(bytes + [0]) == nil)
        #expect(SecondLevelEntryCodec.decode(Array("{\"json\":true}".utf8)) == nil)
    }

    @Test("flipping any byte either still decodes or is unreadable: it never traps")
    func corruptedValues() {
        let bytes = SecondLevelEntryCodec.encode(Self.entry)
        var unreadable = 0
        for index in bytes.indices {
            var corrupted = bytes
            corrupted[index] ^= 0xA5
            if SecondLevelEntryCodec.decode(corrupted) == nil { unreadable += 1 }
        }
        // Lengths, flags and the header are checked: a good share of single-byte corruptions are caught here; the
        // rest (inside strings or the body) fail when the body is decoded as the response type, or change a field.
        #expect(unreadable > 20)
    }

    @Test("whatever still decodes after a byte is flipped re-encodes to exactly those bytes")
    func decodedValuesReencodeToTheirOwnBytes() throws {
        let bytes = SecondLevelEntryCodec.encode(Self.entry)
        var decoded = 0
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80, 0xA5] {
                var corrupted = bytes
                corrupted[index] ^= flip
                guard let entry = SecondLevelEntryCodec.decode(corrupted) else { continue }
                decoded += 1
                #expect(SecondLevelEntryCodec.encode(entry) == corrupted, "byte \(index) ^ \(flip)")
            }
        }
        #expect(decoded > 100)
    }

    @Test("a set written out of order, or a time that would not encode back, is unreadable")
    func nonCanonicalValues() throws {
        let bytes = SecondLevelEntryCodec.encode(Self.entry)
        // The domains are written sorted: "accountSummary" then "balances". Swapping their first letters keeps
        // every length and makes the list descending.
        let summary = try #require(bytes.firstRange(of: Array("accountSummary".utf8)))
        let balances = try #require(bytes.firstRange(of: Array("balances".utf8)))
        var unordered = bytes
        unordered[summary.lowerBound] = UInt8(ascii: "b")
        unordered[balances.lowerBound] = UInt8(ascii: "a")
        #expect(SecondLevelEntryCodec.decode(unordered) == nil)

        // Stored-at 1e-300 s after 1970: `Date` keeps time since 2001, so it comes back as exactly 0.
        var inexact = bytes
        let storedAt = 4 + 1 + 1 + 2  // magic, version, kind, status
        let tiny = (1e-300 as Double).bitPattern
        for shift in 0..<8 { inexact[storedAt + 7 - shift] = UInt8(truncatingIfNeeded: tiny >> (shift * 8)) }
        #expect(SecondLevelEntryCodec.decode(inexact) == nil)
    }

    @Test("a string of other scripts round-trips; one that is not UTF-8 makes the value unreadable")
    func stringsBeyondASCII() throws {
        var entry = Self.entry
        entry.metadata.domains = ["balances", "comptes-épargne"]
        entry.metadata.validators = CacheValidators(etag: "\"é🙂\"", lastModified: nil)
        let bytes = SecondLevelEntryCodec.encode(entry)
        #expect(SecondLevelEntryCodec.decode(bytes) == entry)

        // "é" is C3 A9: a lone continuation byte in its place (the length kept) is not UTF-8.
        let accent = try #require(bytes.firstRange(of: Array("é".utf8)))
        var broken = bytes
        broken[accent.lowerBound] = 0xA9
        #expect(SecondLevelEntryCodec.decode(broken) == nil)
        // The same in an ASCII string: a byte above 0x7F alone is refused, never decoded with a replacement.
        let balances = try #require(bytes.firstRange(of: Array("balances".utf8)))
        var high = bytes
        high[balances.lowerBound] = 0xE2
        #expect(SecondLevelEntryCodec.decode(high) == nil)
    }

    @Test("a huge declared length is refused without allocating it")
    func hugeDeclaredLength() {
        var bytes = SecondLevelEntryCodec.encode(Self.entry)
        let bodyLengthOffset = bytes.count - Self.entry.body.count - 4
        bytes.replaceSubrange(bodyLengthOffset..<(bodyLengthOffset + 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(SecondLevelEntryCodec.decode(bytes) == nil)
    }
}

@Suite("The second level's GraphQL entry form")
struct SecondLevelGraphQLCodecTests {
    static let entry = GraphQLSecondLevelEntry(
        data: Array(#"{"accounts":[{"id":"101","__typename":"Account"}]}"#.utf8),
        storedAt: Date(timeIntervalSince1970: 1_700_000_000.5), expiresAt: Date(timeIntervalSince1970: 1_700_000_300))

    @Test("a result round-trips, with or without an expiry")
    func roundTrip() {
        #expect(SecondLevelEntryCodec.decodeGraphQL(SecondLevelEntryCodec.encode(Self.entry)) == Self.entry)
        var never = Self.entry
        never.expiresAt = nil
        #expect(SecondLevelEntryCodec.decodeGraphQL(SecondLevelEntryCodec.encode(never)) == never)
    }

    @Test("a truncated result, or a REST entry read as GraphQL (and back), is unreadable")
    func truncatedOrOfAnotherKind() {
        let bytes = SecondLevelEntryCodec.encode(Self.entry)
        for length in 0..<bytes.count {
            #expect(SecondLevelEntryCodec.decodeGraphQL(Array(bytes.prefix(length))) == nil, "length \(length)")
        }
        #expect(SecondLevelEntryCodec.decode(bytes) == nil)
        #expect(SecondLevelEntryCodec.decodeGraphQL(SecondLevelEntryCodec.encode(SecondLevelCodecTests.entry)) == nil)
    }
}

@Suite("The second level's names: keyed hashes that carry no identifier")
struct SecondLevelNamesTests {
    static let names = SecondLevelNames(
        secret: try! SecondLevelSecret(Array("l2-secret-for-tests-0123456789-0123".utf8)))

    @Test("namespaces, entry names and tags never contain the id, principal, key or account they are made from")
    func noRawIdentifiers() {
        let scope = CacheScope.session("12:session-alice|alice@example.com")
        let key = Self.names.key(.rest, "accounts.acc-123456.balance", in: scope)
        let tags = [
            Self.names.tag(.account("acc-123456"), in: key.namespace),
            Self.names.tag(.entity("Account:acc-123456"), in: key.namespace),
            Self.names.tag(.domain("balances"), in: key.namespace),
        ]
        for text in [key.namespace.name, key.name] + tags.map(\.name) {
            for secret in ["session-alice", "alice", "example.com", "acc-123456", "balances", "Account"] {
                #expect(!text.contains(secret))
            }
            #expect(text.count == 22)  // 16 bytes, base64url without padding
        }
    }

    @Test("the same inputs give the same names on every replica; another secret, another name")
    func stableAndKeyed() throws {
        let other = SecondLevelNames(secret: try SecondLevelSecret(Array("another-secret-0123456789abcdef-0123".utf8)))
        let again = SecondLevelNames(secret: try SecondLevelSecret(Array("l2-secret-for-tests-0123456789-0123".utf8)))
        let scope = CacheScope.session("s|alice")
        #expect(again.key(.rest, "k", in: scope) == Self.names.key(.rest, "k", in: scope))
        #expect(other.key(.rest, "k", in: scope) != Self.names.key(.rest, "k", in: scope))
        #expect(Self.names.namespace(of: .shared) != Self.names.namespace(of: .session("shared")))
        #expect(Self.names.namespace(of: .session("s|alice")) != Self.names.namespace(of: .session("s|bob")))
        #expect(Self.names.key(.rest, "k", in: scope) != Self.names.key(.graphQL, "k", in: scope))
    }

    @Test("names are the keyed hash of their parts joined by zero bytes, as every replica makes them; tags kept or not")
    func namesFromJoinedParts() throws {
        let secret = try SecondLevelSecret(Array("l2-secret-for-tests-0123456789-0123".utf8))
        let names = SecondLevelNames(secret: secret)
        let namespace = names.namespace(of: .session("s|alice"))
        #expect(
            names.key(.rest, "cards.list", in: namespace).name
                == secret.name("entry", namespace.name + "\u{0}rest\u{0}cards.list"))
        let expected = SecondLevelTag(secret.name("tag", namespace.name + "\u{0}domain\u{0}balances"))
        #expect(names.tag(.domain("balances"), in: namespace) == expected)
        #expect(names.tag(.domain("balances"), in: namespace) == expected, "the kept name is the same name")
        #expect(names.tagNames.count == 1)
        let other = names.namespace(of: .shared)
        #expect(names.tag(.domain("balances"), in: other) != expected, "another namespace, another tag")
    }

    @Test(
        "a name is base64url of the first 16 bytes of HMAC-SHA256 under the derived naming key, as every release makes it"
    )
    func nameFromItsDefinition() throws {
        let master = Array("l2-secret-for-tests-0123456789-0123".utf8)
        let secret = try SecondLevelSecret(master)
        let key = HKDF.key(from: master, salt: [], label: "ucache second level names v2")
        for parts in [["ns", "rest", "bench.l2.1"], [""], ["", ""], ["é", String(repeating: "k", count: 300)]] {
            var message = Array("entry".utf8)
            for part in parts { message += [0] + Array(part.utf8) }
            let code = HMACKey.code(for: message, key: key).prefix(16)
            let expected = Data(code).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(secret.name("entry", parts) == expected, "\(parts)")
        }
    }

    @Test("kept tag names are bounded: a full set is emptied, and names made again are the same")
    func tagNamesBounded() throws {
        let names = SecondLevelNames(secret: try SecondLevelSecret(Array("l2-secret-for-tests-0123456789-0123".utf8)))
        let namespace = names.namespace(of: .shared)
        let first = names.tag(.keyPrefix("p0."), in: namespace)
        for index in 0..<SecondLevelTagNames.capacity {
            _ = names.tag(.keyPrefix("p\(index)."), in: namespace)
        }
        #expect(names.tagNames.count <= SecondLevelTagNames.capacity)
        #expect(names.tag(.keyPrefix("p0."), in: namespace) == first)
    }

    @Test("a secret shorter than 16 bytes is refused")
    func shortSecret() {
        #expect(throws: UnifiedCacheError.self) { try SecondLevelSecret(Array("short".utf8)) }
    }

    @Test("an entry is tagged with what clears name; an uplifted one only with its kind and the uplifted tag")
    func labels() {
        let metadata = SecondLevelCodecTests.entry.metadata
        let labels = SecondLevelNames.labels(
            ofREST: metadata, key: "cardsExperienceV3.page_1", knownPrefixes: ["cardsExperienceV3", "payees"])
        #expect(
            labels == [
                .kind(.rest), .domain("balances"), .domain("accountSummary"), .account("acc-1"), .account("tok-1"),
                .entity("Account:acc-1"), .path("/api/accounts"), .keyPrefix("cardsExperienceV3"),
            ])
        var uplifted = metadata
        uplifted.isUplifted = true
        #expect(
            SecondLevelNames.labels(ofREST: uplifted, key: "k", knownPrefixes: ["k"]) == [.kind(.rest), .uplifted])
    }
}

@Suite("How long the store keeps an entry (garbage collection, not freshness)")
struct SecondLevelTimeToLiveTests {
    private func timeToLive(_ lifetime: Duration?, validators: Bool) -> Duration {
        SecondLevelConfiguration.timeToLive(
            lifetime: lifetime, hasValidators: validators, retention: .seconds(600), maximum: .seconds(86_400))
    }

    @Test("its lifetime, plus the revalidation retention when it has validators, capped by the maximum")
    func timeToLive() {
        #expect(timeToLive(.seconds(300), validators: false) == .seconds(300))
        #expect(timeToLive(.seconds(300), validators: true) == .seconds(900))
        #expect(timeToLive(nil, validators: false) == .seconds(86_400))
        #expect(timeToLive(.seconds(90_000), validators: false) == .seconds(86_400))
        #expect(timeToLive(.zero, validators: false) == .seconds(1))
    }
}
