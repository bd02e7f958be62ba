import CCurl
import Foundation
import Synchronization

/// One request in flight: its easy handle, what has been received, and who is waiting for it.
///
/// `@unchecked Sendable` is sound because the mutable fields are confined in time:
/// - `handle`, `headerList` and the buffers are written by the submitting task while it configures the
///   transfer, then handed to the event loop through the loop's `Mutex` (which orders those writes before
///   any read on the loop thread); from then on only the loop thread touches them, until it resumes the
///   waiting task (which orders the loop's writes before the task's reads). The task then reads the answer
///   and gives the handle back to the pool; the loop no longer touches it.
/// - `phase` (and with it the continuation) is only ever accessed under its own `Mutex`.
final class Transfer: @unchecked Sendable {
    /// How a transfer ended, as the loop reports it; the waiting task turns it into a response or an error.
    enum End {
        /// libcurl ran the transfer to its end with this result.
        case completed(CURLcode)
        /// It never got there: cancelled, refused, or the client shut down.
        case failed(CurlHTTPError)

        var isSuccess: Bool {
            guard case .completed(let code) = self else { return false }
            return code == CURLE_OK
        }
    }
    #if UCACHE_TSAN
        /// Checked under ThreadSanitizer: the runtime's unsafe-continuation hand-off is not instrumented, so TSan
        /// would see the loop's writes and the task's reads as unordered; the checked one's canary orders them.
        typealias Continuation = CheckedContinuation<End, Never>
    #else
        /// Unsafe rather than checked: `phase` already guarantees the single resume a checked one would verify,
        /// and the checked one allocates a canary per request.
        typealias Continuation = UnsafeContinuation<End, Never>
    #endif

    /// Suspends the caller until the transfer's continuation is resumed (checked under TSan, unsafe otherwise).
    static func withContinuation(_ body: (Continuation) -> Void) async -> End {
        #if UCACHE_TSAN
            await withCheckedContinuation(body)
        #else
            await withUnsafeContinuation(body)
        #endif
    }

    enum Phase {
        /// Configured, not yet on the multi handle; `cancelled` records a cancellation that came first.
        case pending(Continuation?, cancelled: Bool)
        /// On the multi handle.
        case running(Continuation)
        /// Resumed; nothing may happen any more.
        case finished
    }

    /// The pooled easy handle, this transfer's until the loop gives it back to the pool.
    let handle: PooledEasyHandle
    var easy: UnsafeMutableRawPointer { handle.easy }
    let request: CurlHTTPClient.Request
    /// `scheme://host:port/path` of the request, for error messages (no userinfo, no query); computed when needed.
    var redactedURL: String { RequestValidation.redacted(request.url) }
    let maximumResponseSize: Int
    // `@exclusivity(unchecked)` on the fields below: the confinement above gives them one thread at a time, and no
    // access to one overlaps another access to it, so the run-time exclusivity check (a thread-local access set,
    // several times per request in libcurl's callbacks) could never fire.
    @exclusivity(unchecked) var headerList: UnsafeMutablePointer<curl_slist>?

    // Filled by libcurl's callbacks on the loop thread (the header lines go to `handle.headerBytes`).
    @exclusivity(unchecked) var body = Data()
    @exclusivity(unchecked) var exceededMaximumSize = false
    /// Attempts libcurl started, and status lines received since the latest one (see `SendAttempts`).
    @exclusivity(unchecked) var attempts = SendAttempts()

    private let phase = Mutex<Phase>(.pending(nil, cancelled: false))

    init(handle: PooledEasyHandle, request: CurlHTTPClient.Request, maximumResponseSize: Int) {
        self.handle = handle
        self.request = request
        self.maximumResponseSize = maximumResponseSize
    }

    deinit {
        curl_slist_free_all(headerList)
    }

    // MARK: Phase transitions (any thread)

    /// Records the waiting continuation; returns false when the task was cancelled before, in which case
    /// the caller must fail the transfer itself.
    func attach(_ continuation: Continuation) -> Bool {
        phase.withLock { phase in
            guard case .pending(nil, let cancelled) = phase else { preconditionFailure("attached twice") }
            if cancelled {
                phase = .finished
                return false
            }
            phase = .pending(continuation, cancelled: false)
            return true
        }
    }

    /// Called by the loop when it adds the handle; false means the transfer was cancelled meanwhile.
    func markRunning() -> Bool {
        phase.withLock { phase in
            guard case .pending(let continuation?, cancelled: false) = phase else { return false }
            phase = .running(continuation)
            return true
        }
    }

    /// Records a cancellation. Returns true when the transfer is running and the loop must remove it.
    func requestCancellation() -> Bool {
        phase.withLock { phase in
            switch phase {
            case .pending(let continuation, _):
                phase = .pending(continuation, cancelled: true)
                return false
            case .running:
                return true
            case .finished:
                return false
            }
        }
    }

    /// Resumes the waiter exactly once; later calls do nothing.
    func finish(_ end: End) {
        let continuation: Continuation? = phase.withLock { phase in
            defer { phase = .finished }
            switch phase {
            case .pending(let continuation, _): return continuation
            case .running(let continuation): return continuation
            case .finished: return nil
            }
        }
        continuation?.resume(returning: end)
    }

    /// Called by the waiting task once resumed, before it reads what the loop wrote. The continuation's resume
    /// already orders the loop's writes before the task's reads; under ThreadSanitizer, taking the lock
    /// ``finish(_:)`` released also makes that edge visible to it. Release builds pay nothing on the hot path.
    @inline(__always)
    func acknowledgeEnd() {
        #if UCACHE_TSAN
            phase.withLock { _ in }
        #endif
    }

    /// libcurl's error buffer, with the URL's query and userinfo removed if libcurl echoed them.
    /// Read by the waiting task, before the handle goes back to the pool.
    var curlMessage: String {
        let text = String(cString: handle.errorBuffer)
        guard text.contains(request.url) else { return text }
        return text.replacingOccurrences(of: request.url, with: redactedURL)
    }
}
