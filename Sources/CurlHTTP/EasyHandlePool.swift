import CCurl
import Synchronization

/// Reuses easy handles between requests: `curl_easy_init` allocates several kilobytes and
/// initialises state a reset keeps, so a pool saves work on every request.
final class EasyHandlePool: Sendable {
    private let capacity: Int
    private let idle: Mutex<[EasyHandle]>

    init(capacity: Int) {
        self.capacity = capacity
        self.idle = Mutex([])
    }

    /// A handle with default options, or nil when libcurl cannot allocate one.
    func take() -> UnsafeMutableRawPointer? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle.pointer }
        return curl_easy_init()
    }

    /// Resets a handle no longer used by any transfer and keeps it for the next request.
    func recycle(_ handle: UnsafeMutableRawPointer) {
        // libcurl 7.88 (fixed upstream by curl PR 10709) does not free the list of cookie files in curl_easy_reset:
        // one `COOKIEFILE ""` node would leak per request with a jar. Clearing the list explicitly frees it
        // on every version. It must happen while the share is still attached: with a shared cookie store,
        // clearing only switches this handle's engine off and keeps the jar's cookies.
        _ = ucc_easy_setopt_string(handle, CURLOPT_COOKIEFILE, nil)
        // curl_easy_reset keeps an attached share handle; detach it, or the next user of this handle
        // would write into (and lock through) a cookie jar that may be gone.
        _ = ucc_easy_setopt_share(handle, nil)
        curl_easy_reset(handle)
        let kept = idle.withLock { idle -> Bool in
            guard idle.count < capacity else { return false }
            idle.append(EasyHandle(pointer: handle))
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }

    /// Frees every idle handle (at shutdown).
    func drain() {
        for handle in idle.withLock({ idle in
            defer { idle.removeAll() }
            return idle
        }) {
            curl_easy_cleanup(handle.pointer)
        }
    }

    deinit { drain() }
}

/// An idle easy handle. `@unchecked Sendable` is sound: a handle in the pool is used by nobody; `take`
/// hands it to exactly one owner under the pool's lock.
struct EasyHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
