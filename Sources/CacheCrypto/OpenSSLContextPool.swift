import Synchronization

/// Keyed OpenSSL contexts kept for reuse: a key's operation takes one (a fresh copy of the key's template when none is
/// spare), starts it over, and gives it back. Copying and freeing a context cost more than hashing or sealing a short
/// value, which is what most operations here are.
///
/// `@unchecked Sendable`: `template`, `copy` and `free` are set once and never change (the template is only read, by
/// `copy`); a context moves between threads only through `spare`'s lock, and the thread that took it is the only one
/// using it until it is given back.
final class OpenSSLContextPool: @unchecked Sendable {
    private struct Context: @unchecked Sendable {  // moved only under `spare`'s lock (see the type's comment)
        let pointer: OpaquePointer
    }

    /// Contexts kept beyond which a returned one is freed (about as many as threads work with the key at once).
    private static let spareLimit = 16

    private let template: OpaquePointer
    private let copy: (OpaquePointer) -> OpaquePointer?
    private let free: (OpaquePointer) -> Void
    private let spare = Mutex<[Context]>([])

    /// A pool of copies of `template`, which its owner keeps and frees.
    init(
        template: OpaquePointer, copy: @escaping (OpaquePointer) -> OpaquePointer?,
        free: @escaping (OpaquePointer) -> Void
    ) {
        self.template = template
        self.copy = copy
        self.free = free
    }

    deinit {
        for context in spare.withLock({ $0 }) { free(context.pointer) }
    }

    /// A keyed context for this thread's use until ``give(_:reusable:)``.
    func take() -> OpaquePointer {
        guard let context = spare.withLock({ $0.popLast()?.pointer }) ?? copy(template) else {
            fatalError("OpenSSL could not copy a keyed context: libcrypto is unusable")
        }
        return context
    }

    /// Keeps `context` for the next operation; one left midway by a failed operation (`reusable` false) is freed.
    func give(_ context: OpaquePointer, reusable: Bool = true) {
        let kept =
            reusable
            && spare.withLock { spare in
                guard spare.count < Self.spareLimit else { return false }
                spare.append(Context(pointer: context))
                return true
            }
        if !kept { free(context) }
    }
}
