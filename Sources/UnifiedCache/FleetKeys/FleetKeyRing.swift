import CacheCrypto
import Foundation

/// The master keys of a fleet secret, current first: what rotation needs.
///
/// Every replica seals with the current key and opens with any key of its ring, so a rolling rotation (deploy
/// `new,old`, then `new`) never makes one replica refuse another's messages or values. Each key has a short id, sent
/// in the clear beside what it sealed, so a receiver picks the key without trying them all.
///
/// Keys are random bytes, not passwords: at least 32 bytes, written `base64:…` or `hex:…` (e.g. `base64:` followed by
/// the output of `openssl rand -base64 32`). Plain text is refused, because every message on the channel allows
/// offline guessing of a weak secret.
struct FleetKeyRing: Sendable {
    /// One master key and the id that names it on the wire.
    struct Key: Sendable {
        /// The first 4 bytes of HKDF(master, "ucache key id v2"): names the key, reveals nothing of it.
        let id: [UInt8]
        /// The master key; every purpose's key is derived from it (``derivedKey(_:)``).
        fileprivate let master: [UInt8]

        init(master: [UInt8]) {
            self.master = master
            id = Array(HKDF.key(from: master, label: "ucache key id v2").prefix(FleetKeyRing.idLength))
        }

        /// A 32-byte key of its own for `label` (one label per purpose and format version), optionally salted.
        func derivedKey(_ label: String, salt: [UInt8] = []) -> [UInt8] {
            HKDF.key(from: master, salt: salt, label: label)
        }
    }

    static let minimumKeyLength = 32
    static let idLength = 4
    /// Key lists longer than this are a configuration mistake (rotation needs two).
    static let maximumKeyCount = 8

    /// Current first.
    let keys: [Key]

    /// The key everything is sealed with.
    var current: Key { keys[0] }

    /// The key named `id`, if the ring holds it.
    func key(id: some Collection<UInt8>) -> Key? {
        keys.first { $0.id.elementsEqual(id) }
    }

    /// A ring of raw master keys, current first; `name` says which secret in errors.
    ///
    /// - Throws: `.invalidSettings` when the list is empty or too long, a key is shorter than 32 bytes, or two keys
    ///   are the same.
    init(masters: [[UInt8]], name: String) throws(UnifiedCacheError) {
        guard !masters.isEmpty, masters.count <= Self.maximumKeyCount else {
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "The \(name) secret needs 1 to \(Self.maximumKeyCount) keys (got \(masters.count)).")
        }
        for (index, master) in masters.enumerated() where master.count < Self.minimumKeyLength {
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "Key \(index + 1) of the \(name) secret has \(master.count) bytes; at least "
                    + "\(Self.minimumKeyLength) random bytes are needed.")
        }
        let keys = masters.map(Key.init(master:))
        guard Set(keys.map(\.id)).count == keys.count else {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "The \(name) secret lists the same key twice.")
        }
        self.keys = keys
    }

    /// A ring from its text form: comma-separated keys, current first, each `base64:…` or `hex:…`.
    ///
    /// - Throws: `.invalidSettings` (with `place`) for plain text, a key that does not decode, or the rules of
    ///   ``init(masters:name:)``. The message never repeats the text.
    init(text: String, name: String, place: String) throws(UnifiedCacheError) {
        var masters: [[UInt8]] = []
        for (index, part) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let master = Self.decode(trimmed) else {
                throw UnifiedCacheError(
                    code: .invalidSettings,
                    message: "Key \(index + 1) of the \(name) secret is not `base64:…` or `hex:…` (plain-text "
                        + "secrets are refused: use at least 32 random bytes, e.g. `base64:` + the output of "
                        + "`openssl rand -base64 32`).",
                    place: place)
            }
            masters.append(master)
        }
        do {
            try self.init(masters: masters, name: name)
        } catch {
            var located = error
            located.place = place
            throw located
        }
    }

    /// The bytes of `base64:…` (standard or URL alphabet, padding optional) or `hex:…`; nil for anything else.
    static func decode(_ text: String) -> [UInt8]? {
        if text.hasPrefix("hex:") {
            let digits = Array(text.utf8.dropFirst(4))
            guard digits.count.isMultiple(of: 2), !digits.isEmpty else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            for index in stride(from: 0, to: digits.count, by: 2) {
                guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
            }
            return bytes
        }
        if text.hasPrefix("base64:") {
            var body = String(text.dropFirst(7)).replacingOccurrences(of: "-", with: "+")
                .replacingOccurrences(of: "_", with: "/")
            body += String(repeating: "=", count: (4 - body.utf8.count % 4) % 4)
            guard !body.isEmpty, let data = Data(base64Encoded: body) else { return nil }
            return Array(data)
        }
        return nil
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension FleetKeyRing: CustomStringConvertible, CustomReflectable {
    /// The key ids only: never key material.
    var description: String {
        "FleetKeyRing(\(keys.count) keys, current \(keys[0].id.map { String($0, radix: 16) }.joined()))"
    }

    /// No children: `dump()` and reflection-based loggers see nothing of the keys.
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension FleetKeyRing.Key: CustomStringConvertible, CustomReflectable {
    var description: String { "FleetKey(redacted)" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
