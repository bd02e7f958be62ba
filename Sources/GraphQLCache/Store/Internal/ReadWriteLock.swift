import Foundation
import GraphQLLanguage

/// A `pthread_rwlock_t`: many readers at once, or one writer.
///
/// Reads of a normalized partition walk thousands of records; with a mutex, two requests reading the same
/// session's cache would queue behind each other. `Synchronization` has no reader-writer lock, hence this
/// wrapper.
///
/// A non-copyable value rather than an object: each scope's table holds one, and an object of its own would cost
/// a heap block per scope for nothing but the pointer.
///
/// `@unchecked Sendable` is safe because the only stored property is a pointer fixed at `init` and never
/// reassigned; the memory it points to is only touched through the `pthread_rwlock_*` functions, which are
/// thread-safe by contract; the lock is initialised before its owner is shared and destroyed in `deinit`, which
/// runs when its owner is destroyed, when no other reference (hence no holder) can exist; being non-copyable,
/// no second value can destroy it again.
struct ReadWriteLock: ~Copyable, @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        let status = pthread_rwlock_init(lock, nil)
        precondition(status == 0, "pthread_rwlock_init failed with \(status)")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` holding the lock shared with other readers.
    func withReadLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body` holding the lock alone.
    func withWriteLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
