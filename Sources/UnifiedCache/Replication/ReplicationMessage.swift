import CacheCore

/// One clear as it travels between replicas, before sealing. Internal: on the wire it is the sealed binary form of
/// `ReplicationMessageCodec`; who sent it and when is in the sealed envelope's header (`ReplicationEnvelope`).
///
/// A message names its session by ``ReplicationSecret/sessionHash(of:)``, never by id. Cached values never travel:
/// a mutation on one replica becomes "drop these records / entities" on the others, which then fetch afresh.
struct ReplicationMessage: Codable, Equatable, Sendable {
    /// The keyed hash of the session the clear concerns; nil for clears of every session.
    var session: String?
    var clear: ReplicatedClear
}

/// What a replica does when the message arrives, mirroring the hub's clearing operations.
enum ReplicatedClear: Codable, Equatable, Sendable {
    /// `clearAllCaches()`, `clearCache()`, `endSession(id:)` (then `endsSession`), expiry, eviction.
    case everything(reason: String, endsSession: Bool)
    case rest
    case graphQL
    case timestamps
    case uplifted
    /// `clearCache(forQuery:)`: an operation name or document.
    case query(String)
    /// `clearCache(forAccountId:)` / `clearCache(forAccountToken:)`: the receiver resolves the identifier itself.
    case account(String)
    /// `clear(domain:)` and the granular methods built on it.
    case domain(name: String, reason: String)
    /// A successful REST mutation: the receiver applies the same invalidation rules to the same path, and drops the
    /// entities the entity links named (fields, or whole records when `fields` is nil).
    case restMutation(method: String, path: String, entities: [EntityChange])
    /// A GraphQL mutation changed these records on the sender; the receiver drops its copies (and REST copies).
    case graphQLMutation(records: [String])
    /// `reloadSettings(…clearingAffectedDomains:)`: these domains in every session of the receiver.
    case domainsInEverySession(names: [String], reason: String)
    /// The sender may have lost outgoing messages: every receiver drops all its local entries.
    case dropLocalCaches
    /// A session's value door cleared the value under `key` (when not nil) and the values tagged any of `tags`.
    case values(key: String?, tags: [String])
    /// `SharedValues.clearEverywhere(tag:)`: the values tagged any of `tags` in every session and the shared scope.
    case valueTagsInEveryScope(tags: [String])
}

/// One entity a REST mutation changed, as the entity links computed it on the sender.
struct EntityChange: Codable, Equatable, Sendable {
    var record: String
    var fields: [String]?
}

extension ClearReason {
    /// The reason's wire name (its description): `logout`, `custom(name)`, ….
    var replicatedName: String { description }

    /// The reason named on the wire; an unknown name becomes `.custom(name)`, so a newer sender never breaks an
    /// older receiver.
    init(replicatedName name: String) {
        if let known = name.utf8.withContiguousStorageIfAvailable(Self.init(asciiReplicatedName:)), let known {
            self = known
            return
        }
        switch name {
        case "logout": self = .logout
        case "sessionExpired": self = .sessionExpired
        case "principalChanged": self = .principalChanged
        case "sessionEvicted": self = .sessionEvicted
        case "accountSwitch": self = .accountSwitch
        case "userRefresh": self = .userRefresh
        case "mutation": self = .mutation
        case "settingsChanged": self = .settingsChanged
        case "memoryPressure": self = .memoryPressure
        case "manual": self = .manual
        default:
            if name.hasPrefix("custom("), name.hasSuffix(")") {
                self = .custom(String(name.dropFirst("custom(".count).dropLast()))
            } else {
                self = .custom(name)
            }
        }
    }

    /// The names a reason is sent under, but for `custom(…)`.
    private static let wireNames: [(StaticString, ClearReason)] = [
        ("logout", .logout), ("sessionExpired", .sessionExpired), ("principalChanged", .principalChanged),
        ("sessionEvicted", .sessionEvicted), ("accountSwitch", .accountSwitch), ("userRefresh", .userRefresh),
        ("mutation", .mutation), ("settingsChanged", .settingsChanged), ("memoryPressure", .memoryPressure),
        ("manual", .manual),
    ]

    /// ``init(replicatedName:)`` of an ASCII name, compared byte by byte (for ASCII, what the string comparisons
    /// decide); nil for any other name, which the string comparisons then read.
    private init?(asciiReplicatedName name: UnsafeBufferPointer<UInt8>) {
        guard ReplicationMessageCodec.isASCII(UnsafeRawBufferPointer(name)) else { return nil }
        for (wire, reason) in Self.wireNames where wire.utf8CodeUnitCount == name.count {
            let matches = wire.withUTF8Buffer { $0.elementsEqual(name) }
            if matches {
                self = reason
                return
            }
        }
        let prefix: StaticString = "custom("
        let opens = name.count > prefix.utf8CodeUnitCount && prefix.withUTF8Buffer { name.starts(with: $0) }
        if opens, name.last == UInt8(ascii: ")") {
            self = .custom(String(decoding: name[prefix.utf8CodeUnitCount..<(name.count - 1)], as: UTF8.self))
        } else {
            self = .custom(String(decoding: name, as: UTF8.self))
        }
    }
}
