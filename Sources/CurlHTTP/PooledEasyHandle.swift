import CCurl

/// A libcurl easy handle kept by the pool, with the options every request of its client shares already set.
///
/// Those options (callbacks, limits, TLS, redirect policy, protocols) are set once per handle, not after a
/// `curl_easy_reset` on every request: resetting and setting them again cost about as much CPU as libcurl
/// needs for a small keep-alive request. What differs between requests is set on every request to a definite
/// value, and what only some requests set (a method, a body, a cookie jar) is recorded in ``requestOptions``
/// and undone before the next request (see `EasyHandleSetup`), so no request inherits another's settings.
/// A transfer that failed or that libcurl sent more than once gets a full reset instead (see
/// `EasyHandlePool.recycle`).
///
/// `@unchecked Sendable` is sound: a handle has one owner at a time and changes hands only through a lock —
/// the pool (its `Mutex`), then the task configuring a request, then the event loop (through the loop's
/// `Mutex`), then the pool again.
final class PooledEasyHandle: @unchecked Sendable {
    /// Options a request set away from the handle's defaults, which the next request must undo.
    struct RequestOptions: OptionSet {
        let rawValue: UInt8
        /// `CURLOPT_CUSTOMREQUEST`.
        static let customMethod = RequestOptions(rawValue: 1 << 0)
        /// `CURLOPT_POST`, `CURLOPT_POSTFIELDSIZE_LARGE` and `CURLOPT_COPYPOSTFIELDS`.
        static let body = RequestOptions(rawValue: 1 << 1)
        /// `CURLOPT_NOBODY` (HEAD).
        static let noBody = RequestOptions(rawValue: 1 << 2)
        /// `CURLOPT_FRESH_CONNECT` (libcurl without a pre-request callback only).
        static let freshConnect = RequestOptions(rawValue: 1 << 3)
        /// `CURLOPT_SHARE` and `CURLOPT_COOKIEFILE` of a cookie jar: detached when the transfer ends.
        static let cookieJar = RequestOptions(rawValue: 1 << 4)
        /// `CURLOPT_COOKIEFILE` without a share, for a jar with no store yet: the cookies the transfer received
        /// move into the jar, and the handle's own store is emptied when the transfer ends.
        static let ownCookieEngine = RequestOptions(rawValue: 1 << 5)
    }

    let easy: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER`: libcurl's message about the latest failure of this handle.
    let errorBuffer: UnsafeMutablePointer<CChar>
    // `@exclusivity(unchecked)` on the fields below: with one owner at a time, and no access to a field overlapping
    // another access to it, the run-time exclusivity check (paid on every request) could never fire.
    /// Whether the client's shared options are set (false after `curl_easy_init` and `curl_easy_reset`).
    @exclusivity(unchecked) var hasSharedOptions = false
    /// Whether libcurl has `CURLOPT_PREREQFUNCTION` (7.80 and later), known once the shared options are set.
    @exclusivity(unchecked) var hasPrerequestCallback = false
    @exclusivity(unchecked) var requestOptions: RequestOptions = []
    /// The header lines of a request that sets none of its own: the configured `User-Agent` and `Expect:`
    /// (see `EasyHandleSetup.headerList`). Built once per handle; libcurl copies nothing, so it lives as long as the
    /// handle.
    @exclusivity(unchecked) var defaultHeaderList: UnsafeMutablePointer<curl_slist>?
    /// The raw header lines of the latest response (see `HeaderLines`), reused from one request to the next.
    @exclusivity(unchecked) var headerBytes: [UInt8] = []

    init?() {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        self.errorBuffer = .allocate(capacity: Int(ucc_error_size))
        self.errorBuffer.initialize(to: 0)
        self.headerBytes.reserveCapacity(1024)
    }

    /// Appends one header line and its `\n` separator (loop thread, see `HeaderLines`).
    func appendHeaderLine(_ content: UnsafeRawBufferPointer) {
        headerBytes.append(contentsOf: content)
        headerBytes.append(UInt8(ascii: "\n"))
    }

    /// Back to libcurl's defaults: everything must be set again before the next request.
    func reset() {
        curl_easy_reset(easy)
        hasSharedOptions = false
        requestOptions = []
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(defaultHeaderList)
        errorBuffer.deallocate()
    }
}
