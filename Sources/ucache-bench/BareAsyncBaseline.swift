import CCurl
import Foundation
import Synchronization

/// The floor of any async API over one libcurl-multi thread: *bare + client options*, but each request is awaited by a
/// Swift task, as `CurlHTTPClient.execute` is.
///
/// N tasks each submit their slot's easy handle (set up once, never reset) with a continuation to one loop thread and
/// suspend; the loop adds the handle, runs libcurl, and resumes the continuation with the status. Nothing else: no
/// request or response values, no validation, no cancellation handler, no handle pool. Its distance to *bare + client
/// options* is what awaiting costs in Swift concurrency (a suspension, a resume, and from the global executor the two
/// thread hops); the client's distance to it is the rest of the wrapper.
///
/// Tasks that prefer the loop as their `TaskExecutor` run between two rounds of libcurl, as they do with
/// `CurlHTTPClient.executor`. The loop takes submissions and jobs through a `Mutex` and a `curl_multi_wakeup` when
/// parked: the shape of `CurlEventLoop` with nothing else (written again here, so the floor shares no code with what
/// it measures).
///
/// `@unchecked Sendable` is sound: `state` is a `Mutex`; `handles` (the multi handle and easy handles) and
/// `waiting` are touched only by the loop thread after `init`, except `curl_multi_wakeup`, which libcurl documents as
/// callable from any thread, and `close` after the thread has finished (`stop` waits for it).
final class AsyncLoop: TaskExecutor, @unchecked Sendable {
    private struct State {
        var submissions: [(slot: Int, continuation: UnsafeContinuation<Int, Never>)] = []
        var jobs: [UnownedJob] = []
        var isPolling = false
        var stopRequested = false
    }

    private let state = Mutex(State())
    private let handles: BareCurlMultiBaseline.Loop
    private var waiting: [UnsafeContinuation<Int, Never>?]
    private let finished = DispatchSemaphore(value: 0)

    init(url: String, level: Int) throws {
        handles = try BareCurlMultiBaseline.Loop(url: url, level: level, clientOptions: true)
        waiting = Array(repeating: nil, count: level)
        let thread = Thread { [self] in run() }
        thread.name = "bare async loop"
        thread.start()
    }

    /// One GET on the slot's handle, awaited through a continuation the loop resumes.
    func get(slot: Int) async throws {
        let status = await withUnsafeContinuation { submit(slot: slot, $0) }
        guard status == 200 else { throw BenchError("bare async: status \(status)") }
    }

    private func submit(slot: Int, _ continuation: UnsafeContinuation<Int, Never>) {
        let wake = state.withLock { state in
            state.submissions.append((slot, continuation))
            defer { state.isPolling = false }
            return state.isPolling
        }
        if wake { curl_multi_wakeup(handles.multi) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake = state.withLock { state in
            state.jobs.append(job)
            defer { state.isPolling = false }
            return state.isPolling
        }
        if wake { curl_multi_wakeup(handles.multi) }
    }

    /// Stops the thread (no transfer may be in flight) and frees libcurl's handles.
    func stop() {
        state.withLock { $0.stopRequested = true }
        curl_multi_wakeup(handles.multi)
        finished.wait()
        handles.close()
    }

    private func run() {
        let multi = handles.multi
        let executor = asUnownedTaskExecutor()
        var submissions: [(slot: Int, continuation: UnsafeContinuation<Int, Never>)] = []
        var jobs: [UnownedJob] = []
        var done: [(UnsafeContinuation<Int, Never>, Int)] = []
        while true {
            state.withLock { swap(&jobs, &$0.jobs) }
            for job in jobs { job.runSynchronously(on: executor) }
            jobs.removeAll(keepingCapacity: true)
            let stop = state.withLock { state in
                swap(&submissions, &state.submissions)
                return state.stopRequested
            }
            for (slot, continuation) in submissions {
                waiting[slot] = continuation
                curl_multi_add_handle(multi, handles.handles[slot])
            }
            submissions.removeAll(keepingCapacity: true)
            if stop { break }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                var status = 0
                if ucc_multi_message_result(message) == CURLE_OK {
                    _ = ucc_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                }
                let slot = handles.slotOf(easy)
                curl_multi_remove_handle(multi, easy)
                if let continuation = waiting[slot] { done.append((continuation, status)) }
                waiting[slot] = nil
            }
            for (continuation, status) in done { continuation.resume(returning: status) }
            done.removeAll(keepingCapacity: true)
            let idle = state.withLock { state in
                guard state.submissions.isEmpty, state.jobs.isEmpty, !state.stopRequested else { return false }
                state.isPolling = true
                return true
            }
            if idle {
                curl_multi_poll(multi, nil, 0, 1000, nil)
                state.withLock { $0.isPolling = false }
            }
        }
        finished.signal()
    }
}
