#if canImport(Glibc)
    import Glibc
#endif

/// The library's own threads that callers wake (the Redis transport's, a hub's sealing thread).
package enum BatchScheduling {
    /// Linux: puts the calling thread under `SCHED_BATCH`, so that waking it never preempts the thread that woke it:
    /// it runs at the next scheduling point, on whichever core is free, instead of inside the caller's time slice.
    /// The caller pays for queueing, not a context switch; on a busy machine the work starts a scheduling tick later
    /// at most. Elsewhere it does nothing.
    package static func yieldToRequests() {
        #if os(Linux)
            // SCHED_BATCH is 3 in the Linux ABI (uapi linux/sched.h); glibc only declares it under _GNU_SOURCE.
            let batch: Int32 = 3
            var parameters = sched_param()
            _ = sched_setscheduler(0, batch, &parameters)
        #endif
    }
}
