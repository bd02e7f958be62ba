import Synchronization

/// The upstreams (by GraphQL URL) that answered `PersistedQueryNotSupported`, for every client of one store: the
/// sessions of a hub share an upstream, so the first session to learn it spares the others the wasted round trip.
///
/// Checked on every APQ request: one relaxed atomic load while no upstream is listed, the lock only after one is.
final class PersistedQuerySupport: Sendable {
    private let anyUnsupported = Atomic<Bool>(false)
    private let unsupported = Mutex<Set<String>>([])

    /// Whether `url` answered `PersistedQueryNotSupported`.
    func isUnsupported(_ url: String) -> Bool {
        guard anyUnsupported.load(ordering: .acquiring) else {
            return false
        }
        return unsupported.withLock { $0.contains(url) }
    }

    /// Notes that `url` answered `PersistedQueryNotSupported`: whole documents to it from now on.
    func markUnsupported(_ url: String) {
        unsupported.withLock { _ = $0.insert(url) }
        anyUnsupported.store(true, ordering: .releasing)
    }

    /// Forgets every upstream listed (one that has since enabled APQ gets hashes again); returns how many.
    func reset() -> Int {
        unsupported.withLock { set in
            defer { set.removeAll() }
            return set.count
        }
    }
}
