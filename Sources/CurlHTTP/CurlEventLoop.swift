import CCurl
import Foundation
import Synchronization

/// One thread that drives a `curl_multi` handle: it adds submitted transfers, removes cancelled ones,
/// runs libcurl, and resumes each finished transfer's waiter. Building the response or the error and giving
/// the easy handle back to the pool is the waiting task's work, so the one loop thread spends its time in
/// libcurl, unless tasks chose to run on it: the loop is also a `TaskExecutor` (see
/// `CurlEventLoop+TaskExecutor.swift`), and runs the jobs of tasks that prefer it between two rounds of libcurl.
///
/// Other threads talk to it only through `state` (a `Mutex`) followed by `curl_multi_wakeup`, which
/// libcurl documents as callable from any thread. Everything else about the multi handle and the
/// running transfers belongs to the loop thread.
final class CurlEventLoop: Sendable {
    private struct State {
        /// Whether a submitter must wake the loop; at most one wakeup per parking.
        mutating func takeWakeup() -> Bool {
            defer { isPolling = false }
            return isPolling
        }

        var submissions: [Transfer] = []
        var cancellations: [Transfer] = []
        /// Jobs of tasks that prefer this loop as their executor, run on the loop thread.
        var jobs: [UnownedJob] = []
        var stopRequested = false
        var isRunning = true
        /// The loop is parked in `curl_multi_poll` (or about to be) and needs a wakeup to see new work.
        var isPolling = false
        var onStopped: [CheckedContinuation<Void, Never>] = []
    }

    private let multi: MultiHandle
    private let state = Mutex(State())
    let easyHandles: EasyHandlePool

    init(configuration: CurlHTTPClient.Configuration) throws(CurlHTTPError) {
        CurlGlobal.initializeOnce()
        guard let handle = curl_multi_init() else {
            throw CurlHTTPError(.other, "libcurl could not create a multi handle.")
        }
        _ = ucc_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumConnectionsPerHost)
        _ = ucc_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maximumTotalConnections)
        _ = ucc_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, configuration.connectionPoolSize)
        if configuration.enableHTTP2 {
            _ = ucc_multi_setopt_long(handle, CURLMOPT_PIPELINING, ucc_pipe_multiplex)
        }
        self.multi = MultiHandle(handle: handle)
        self.easyHandles = EasyHandlePool(capacity: 64)

        let thread = Thread { [self] in self.run() }
        thread.name = "CurlHTTP event loop"
        thread.start()
    }

    // MARK: Any thread

    /// Hands a configured transfer to the loop; throws `shutdown` once the loop is stopping.
    func submit(_ transfer: Transfer) throws(CurlHTTPError) {
        let (accepted, wake) = state.withLock { state in
            guard !state.stopRequested else { return (false, false) }
            state.submissions.append(transfer)
            return (true, state.takeWakeup())
        }
        guard accepted else { throw CurlHTTPError(.shutdown, "The client has been shut down.") }
        if wake { curl_multi_wakeup(multi.handle) }
    }

    /// Queues a job for the loop thread; once the loop has stopped, the global executor runs it instead,
    /// so a task that prefers a stopped loop still finishes.
    func enqueue(_ job: UnownedJob) {
        let (accepted, wake) = state.withLock { state in
            guard state.isRunning else { return (false, false) }
            state.jobs.append(job)
            return (true, state.takeWakeup())
        }
        if wake { curl_multi_wakeup(multi.handle) }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Asks the loop to remove a running transfer and fail it with `cancelled`.
    func cancel(_ transfer: Transfer) {
        let wake = state.withLock { state in
            guard state.isRunning else { return false }
            state.cancellations.append(transfer)
            return state.takeWakeup()
        }
        if wake { curl_multi_wakeup(multi.handle) }
    }

    /// Stops the loop: transfers not yet finished fail with `shutdown`. Does not wait.
    func requestStop() {
        let wake = state.withLock { state in
            guard state.isRunning, !state.stopRequested else { return false }
            state.stopRequested = true
            return state.takeWakeup()
        }
        if wake { curl_multi_wakeup(multi.handle) }
    }

    /// Stops the loop and waits until its thread has released libcurl.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (resumeNow, wake) = state.withLock { state -> (Bool, Bool) in
                guard state.isRunning else { return (true, false) }
                state.onStopped.append(continuation)
                state.stopRequested = true
                return (false, state.takeWakeup())
            }
            if wake { curl_multi_wakeup(multi.handle) }
            if resumeNow { continuation.resume() }
        }
    }

    // MARK: Loop thread

    private func run() {
        let running = RunningTransfers()
        // Swapped with the shared queues under the lock, so neither side copies or reallocates an array.
        var submissions: [Transfer] = []
        var cancellations: [Transfer] = []
        var jobs: [UnownedJob] = []
        var finished: [(Transfer, CURLcode)] = []
        let executor = asUnownedTaskExecutor()
        while true {
            // Jobs first: the tasks they continue usually submit their next request, started below in this round.
            state.withLock { swap(&jobs, &$0.jobs) }
            for job in jobs { job.runSynchronously(on: executor) }
            jobs.removeAll(keepingCapacity: true)
            let stop = state.withLock { state in
                swap(&submissions, &state.submissions)
                swap(&cancellations, &state.cancellations)
                return state.stopRequested
            }
            for transfer in submissions { start(transfer, in: running) }
            submissions.removeAll(keepingCapacity: true)
            for transfer in cancellations {
                guard running.remove(transfer) else { continue }
                curl_multi_remove_handle(multi.handle, transfer.easy)
                transfer.finish(
                    .failed(CurlHTTPError(.cancelled, "The request to \(transfer.redactedURL) was cancelled.")))
            }
            cancellations.removeAll(keepingCapacity: true)
            if stop { break }

            var stillRunning: Int32 = 0
            curl_multi_perform(multi.handle, &stillRunning)
            collectFinished(running, into: &finished)
            // Resumed together after libcurl's bookkeeping: the woken tasks find every answer of this round
            // at once, and the loop is not preempted between two transfers by a task it just woke.
            for (transfer, result) in finished { transfer.finish(.completed(result)) }
            finished.removeAll(keepingCapacity: true)
            let idle = state.withLock { state in
                // Park only when no work arrived meanwhile; from here on, submitters must wake us.
                guard state.submissions.isEmpty, state.cancellations.isEmpty, state.jobs.isEmpty, !state.stopRequested
                else { return false }
                state.isPolling = true
                return true
            }
            if idle {
                curl_multi_poll(multi.handle, nil, 0, 1000, nil)
                state.withLock { $0.isPolling = false }
            }
        }
        shutDown(running)
    }

    private func start(_ transfer: Transfer, in running: RunningTransfers) {
        guard transfer.markRunning() else {
            transfer.finish(
                .failed(CurlHTTPError(.cancelled, "The request to \(transfer.redactedURL) was cancelled.")))
            return
        }
        let code = curl_multi_add_handle(multi.handle, transfer.easy)
        guard code == CURLM_OK else {
            let message = String(cString: curl_multi_strerror(code))
            transfer.finish(
                .failed(
                    CurlHTTPError(
                        .other, "libcurl refused the transfer.", curlCode: Int(code.rawValue),
                        curlMessage: message)))
            return
        }
        running.insert(transfer)
    }

    /// Removes every transfer libcurl reports done from the multi handle and appends it with its result.
    private func collectFinished(_ running: RunningTransfers, into finished: inout [(Transfer, CURLcode)]) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi.handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = running.remove(easy: easy)
            else { continue }
            finished.append((transfer, ucc_multi_message_result(message)))
            curl_multi_remove_handle(multi.handle, easy)
        }
    }

    private func shutDown(_ running: RunningTransfers) {
        let error = CurlHTTPError(.shutdown, "The client was shut down before the request finished.")
        for transfer in running.removeAll() {
            curl_multi_remove_handle(multi.handle, transfer.easy)
            transfer.finish(.failed(error))
        }
        // One lock: `stop()` and `cancel()` see `isRunning` false exactly when their work can no longer be taken here,
        // and from here on `enqueue` hands jobs to the global executor. Jobs already queued (among them those of tasks
        // just failed with `shutdown`) go there too.
        let (pending, waiters, jobs) = state.withLock { state in
            state.isRunning = false
            defer {
                state.submissions.removeAll()
                state.onStopped.removeAll()
                state.jobs.removeAll()
            }
            return (state.submissions, state.onStopped, state.jobs)
        }
        for transfer in pending { transfer.finish(.failed(error)) }
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        easyHandles.drain()
        for waiter in waiters { waiter.resume() }
    }

    deinit {
        // Here, not at the end of `run`: a submitter may still call curl_multi_wakeup after the loop
        // stopped, and the handle must be valid for it until nobody holds the loop any more.
        curl_multi_cleanup(multi.handle)
    }
}

/// The multi handle pointer. `@unchecked Sendable` is sound: only the loop thread uses it, except
/// `curl_multi_wakeup`, which libcurl documents as thread-safe, and `curl_multi_cleanup` in the loop's
/// `deinit`, when no thread holds the loop any more.
struct MultiHandle: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
}

/// The transfers currently on the multi handle, keyed by easy handle. Owned by the loop thread.
final class RunningTransfers {
    /// Unchecked: one thread, and no access overlaps another, so the run-time exclusivity check could never fire.
    @exclusivity(unchecked) private var byHandle: [UnsafeMutableRawPointer: Transfer] = [:]

    func insert(_ transfer: Transfer) { byHandle[transfer.easy] = transfer }
    /// Removes this very transfer; a recycled handle may already serve a newer one.
    func remove(_ transfer: Transfer) -> Bool {
        guard byHandle[transfer.easy] === transfer else { return false }
        byHandle[transfer.easy] = nil
        return true
    }
    func remove(easy: UnsafeMutableRawPointer) -> Transfer? { byHandle.removeValue(forKey: easy) }
    func removeAll() -> [Transfer] {
        defer { byHandle.removeAll() }
        return Array(byHandle.values)
    }
}
