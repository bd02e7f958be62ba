import CacheCore
import Synchronization

/// Tag names already made, by namespace and label. A REST write is tagged with its kind, domains, key prefixes and
/// path, the same few labels for every write of a namespace, and each name is an HMAC (about 9,800 instructions):
/// kept, they cost a lookup. Bounded: emptied when full, so a process with many sessions keeps at most
/// ``capacity`` names (each about 150 bytes) and makes names again as it did before.
final class SecondLevelTagNames: Sendable {
    struct Key: Hashable, Sendable {
        let namespace: String
        let label: SecondLevelNames.Label
    }

    static let capacity = 4_096

    private let names = Mutex<[Key: SecondLevelTag]>([:])

    /// The tag of `label` in `namespace`, made by `make` the first time.
    func tag(
        _ label: SecondLevelNames.Label, in namespace: SecondLevelNamespace, make: () -> SecondLevelTag
    ) -> SecondLevelTag {
        let key = Key(namespace: namespace.name, label: label)
        if let known = names.withLock({ $0[key] }) { return known }
        let made = make()
        names.withLock { names in
            if names.count >= Self.capacity { names.removeAll(keepingCapacity: true) }
            names[key] = made
        }
        return made
    }

    var count: Int { names.withLock { $0.count } }
}
