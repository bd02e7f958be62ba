/// The loop thread as a task executor.
///
/// A task that prefers it (`withTaskExecutorPreference(client.executor)`) runs on the loop thread: its request is
/// submitted without waking another thread, and its answer resumes it there, between two rounds of libcurl,
/// without a hop through the global pool. That is the bare libcurl-multi loop's one-thread shape, kept for tasks
/// whose work between requests is small (fan-out of upstream calls, a BFF handler's aggregation). A job that runs
/// long delays every transfer of the client, so CPU-heavy work belongs on the global executor.
extension CurlEventLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }
}
