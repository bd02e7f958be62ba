// One file, linked into every module that uses `Mutex` (the other copies are symbolic links to this one), except
// RESTCache: its `APIService` is used by `@inlinable` code in other modules, and a class-typed stored property there
// (this `Mutex`) crashed `ucache-demo` under TSan; its one Mutex (the credentials) is reported by no TSan run.
#if UCACHE_TSAN
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// The lock `make tsan` builds with (`-DUCACHE_TSAN`) in place of `Synchronization.Mutex`.
    ///
    /// Thread Sanitizer does not see `Synchronization.Mutex`'s futex path on Linux, so it reports every access
    /// the mutex guards as a race and a real race drowns among them. This type shadows `Mutex` inside the module
    /// with the same `withLock` API over a `pthread_mutex_t`, which TSan intercepts: with it, a TSan report means
    /// a real race. Release and debug builds never compile it and use `Synchronization.Mutex`.
    ///
    /// `@unchecked Sendable` is sound: `value` is only read or written inside `withLock`, under the mutex.
    ///
    /// Usable from inlinable code, as `Synchronization.Mutex` is: `ScopedPartitions`' read is inlined into the GraphQL
    /// store's module, and `InFlightCalls` makes its flights' locks in code its callers' modules specialise. Every
    /// module of a TSan build is compiled with `UCACHE_TSAN`, so inlined code and the type's own module agree on what
    /// a `Mutex` is.
    @usableFromInline
    final class Mutex<Value>: @unchecked Sendable {
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline var value: Value

        @usableFromInline
        init(_ initialValue: consuming sending Value) {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            value = initialValue
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        @inlinable
        func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value)
        }
    }
#endif
