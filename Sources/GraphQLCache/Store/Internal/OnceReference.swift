import Synchronization

/// A reference set at most once and read with one atomic load, like `AtomicLazyReference`.
///
/// The standard type runs unspecialized from its library and looks up `Unmanaged`'s metadata on every load (a few
/// hundred instructions); a selection plan is asked for its fields twice per record read, so this one is written
/// here, where it is specialized. The stored bits are a reference retained once (released in `deinit`), or 0.
struct OnceReference<Instance: AnyObject & Sendable>: ~Copyable, Sendable {
    private let bits = Atomic<UInt>(0)

    init() {}

    deinit {
        let stored = bits.load(ordering: .acquiring)
        if let pointer = UnsafeRawPointer(bitPattern: stored) {
            Unmanaged<Instance>.fromOpaque(pointer).release()
        }
    }

    /// The reference, once stored.
    func load() -> Instance? {
        guard let pointer = UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)) else {
            return nil
        }
        return Unmanaged<Instance>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Stores `desired` unless a reference is stored already; returns the one stored (the first wins).
    func storeIfNil(_ desired: Instance) -> Instance {
        let retained = Unmanaged.passRetained(desired)
        let (exchanged, original) = bits.compareExchange(
            expected: 0, desired: UInt(bitPattern: retained.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged {
            return desired
        }
        retained.release()
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }
}
