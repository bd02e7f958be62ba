import CCurl
import Synchronization

/// Reuses easy handles between requests: `curl_easy_init` allocates several kilobytes, and a handle kept with its
/// client's shared options set needs only the per-request ones (see ``PooledEasyHandle``).
final class EasyHandlePool: Sendable {
    private let capacity: Int
    private let idle: Mutex<[PooledEasyHandle]>

    init(capacity: Int) {
        self.capacity = capacity
        var handles: [PooledEasyHandle] = []
        handles.reserveCapacity(capacity)
        self.idle = Mutex(handles)
    }

    /// An idle handle, or a new one; nil when libcurl cannot allocate one.
    func take() -> PooledEasyHandle? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        return PooledEasyHandle()
    }

    /// Takes back a handle no longer used by any transfer.
    ///
    /// - Parameter keepingOptions: true after a transfer that succeeded in one attempt: the handle keeps its options
    ///   for the next request. Otherwise (a failure, a cancellation, a resend) it is reset to libcurl's defaults, so
    ///   no state of an unusual transfer (libcurl's retry counter, for one) can reach the next request.
    func recycle(_ handle: PooledEasyHandle, keepingOptions: Bool) {
        if handle.requestOptions.contains(.cookieJar) {
            // libcurl 7.88 (fixed upstream by curl PR 10709) does not free the list of cookie files in curl_easy_reset:
            // one `COOKIEFILE ""` node would leak per request with a jar. Clearing the list explicitly frees it and
            // switches the cookie engine off. It must happen while the share is still attached: with a shared cookie
            // store, clearing only detaches this handle's engine and keeps the jar's cookies.
            _ = ucc_easy_setopt_string(handle.easy, CURLOPT_COOKIEFILE, nil)
            // Neither a kept handle nor curl_easy_reset drops an attached share; detach it, or the next user of this
            // handle would write into (and lock through) a cookie jar that may be gone.
            _ = ucc_easy_setopt_share(handle.easy, nil)
            handle.requestOptions.remove(.cookieJar)
        }
        if handle.requestOptions.contains(.ownCookieEngine) {
            // The handle's own cookies belong to the jar of the transfer that ended: forget them, then switch the
            // engine off (freeing the cookie-file list as above).
            _ = ucc_easy_setopt_string(handle.easy, CURLOPT_COOKIELIST, "ALL")
            _ = ucc_easy_setopt_string(handle.easy, CURLOPT_COOKIEFILE, nil)
            handle.requestOptions.remove(.ownCookieEngine)
        }
        if !keepingOptions { handle.reset() }
        if handle.headerBytes.capacity > 16 * 1024 {
            handle.headerBytes = []  // an unusually large header block does not stay in the pool
            handle.headerBytes.reserveCapacity(1024)
        }
        // A handle the pool does not keep is freed with its last reference.
        idle.withLock { idle in
            if idle.count < capacity { idle.append(handle) }
        }
    }

    /// Frees every idle handle (at shutdown).
    func drain() {
        idle.withLock { $0.removeAll() }
    }
}
