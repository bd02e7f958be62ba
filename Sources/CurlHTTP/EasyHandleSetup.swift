import CCurl
import Foundation

/// Sets the libcurl options of a transfer: once per pooled handle those its client shares, then on every request
/// those of the request (see ``PooledEasyHandle``).
enum EasyHandleSetup {
    static func configure(
        _ transfer: Transfer,
        configuration: CurlHTTPClient.Configuration
    ) throws(CurlHTTPError) {
        let handle = transfer.handle
        let easy = handle.easy
        let request = transfer.request
        var failure = CURLE_OK
        func check(_ code: CURLcode) { if code != CURLE_OK, failure == CURLE_OK { failure = code } }

        if !handle.hasSharedOptions {
            setSharedOptions(of: handle, configuration: configuration, check: check)
            handle.hasSharedOptions = failure == CURLE_OK
        }
        undoRequestOptions(of: handle, configuration: configuration, check: check)
        handle.errorBuffer[0] = 0
        handle.headerBytes.removeAll(keepingCapacity: true)

        // withCString, not the implicit String-to-pointer conversion, which copies the string into a new array.
        check(request.url.withCString { ucc_easy_setopt_string(easy, CURLOPT_URL, $0) })
        let userData = Unmanaged.passUnretained(transfer).toOpaque()
        check(ucc_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, userData))
        check(ucc_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, userData))
        if handle.hasPrerequestCallback {
            check(ucc_easy_setopt_prereq_data(easy, userData))
        } else if !request.allowsAutomaticRetry {
            // libcurl before 7.80 has no pre-request callback: libcurl only resends on a reused connection,
            // so a non-idempotent request gets a new one.
            check(ucc_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1))
            handle.requestOptions.insert(.freshConnect)
        }

        let total = request.timeout ?? configuration.totalTimeout
        check(ucc_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, total.roundedUpMilliseconds))
        if configuration.enableHTTP2 {
            // Waiting for a connection to multiplex on pays only where HTTP/2 can be negotiated (TLS); over plain
            // HTTP it would queue concurrent requests behind one HTTP/1.1 connection (head-of-line blocking).
            check(ucc_easy_setopt_long(easy, CURLOPT_PIPEWAIT, isHTTPS(request.url) ? 1 : 0))
        }
        if let jar = request.cookieJar {
            // The share must be attached before the cookie engine is switched on, or the handle
            // would start a private cookie store of its own.
            check(ucc_easy_setopt_share(easy, jar.share.handle))
            check(ucc_easy_setopt_string(easy, CURLOPT_COOKIEFILE, ""))
            handle.requestOptions.insert(.cookieJar)
        }

        configureMethodAndBody(transfer, check: check)
        if request.headers.count == 0 {
            check(ucc_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, handle.defaultHeaderList))
        } else {
            transfer.headerList = headerList(for: request.headers, configuration: configuration)
            check(ucc_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList))
        }

        if failure != CURLE_OK {
            throw CurlHTTPError(
                .other,
                "libcurl refused an option of the request.",
                curlCode: Int(failure.rawValue),
                curlMessage: String(cString: curl_easy_strerror(failure))
            )
        }
    }

    /// The options every request of the client shares, set on a new or reset handle.
    private static func setSharedOptions(
        of handle: PooledEasyHandle,
        configuration: CurlHTTPClient.Configuration,
        check: (CURLcode) -> Void
    ) {
        let easy = handle.easy
        check(ucc_easy_restrict_to_http(easy))
        check(ucc_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        check(ucc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, handle.errorBuffer))
        check(ucc_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, TransferCallbacks.body))
        check(ucc_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, TransferCallbacks.header))
        // Installed without user data (the callback then refuses every attempt); each request sets its transfer.
        handle.hasPrerequestCallback = ucc_easy_setopt_prereq(easy, TransferCallbacks.beforeAttempt, nil) == CURLE_OK

        check(ucc_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.roundedUpMilliseconds))
        check(ucc_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maximumResponseSize)))

        switch configuration.redirectPolicy {
        case .never:
            check(ucc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        case .follow(let maximum):
            check(ucc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1))
            check(ucc_easy_setopt_long(easy, CURLOPT_MAXREDIRS, max(0, maximum)))
        }

        check(ucc_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, configuration.tls.verifyPeer ? 1 : 0))
        check(ucc_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, configuration.tls.verifyPeer ? 2 : 0))
        if let caBundle = configuration.tls.caBundlePath {
            check(ucc_easy_setopt_string(easy, CURLOPT_CAINFO, caBundle))
        }
        let version = configuration.enableHTTP2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1
        check(ucc_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, version))
        if configuration.acceptCompressedResponses {
            check(ucc_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        }
        if handle.defaultHeaderList == nil {
            handle.defaultHeaderList = headerList(for: [:], configuration: configuration)
        }
    }

    /// Puts back what the previous request on this handle set for itself only.
    private static func undoRequestOptions(
        of handle: PooledEasyHandle,
        configuration: CurlHTTPClient.Configuration,
        check: (CURLcode) -> Void
    ) {
        let easy = handle.easy
        let options = handle.requestOptions
        guard !options.isEmpty else { return }
        if options.contains(.customMethod) {
            check(ucc_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, nil))
        }
        if options.contains(.body) {
            // Frees the copied body; CURLOPT_HTTPGET below turns the method back from POST.
            check(ucc_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, nil))
            check(ucc_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, -1))
        }
        if options.contains(.body) || options.contains(.noBody) {
            check(ucc_easy_setopt_long(easy, CURLOPT_NOBODY, 0))
            check(ucc_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
        }
        if options.contains(.freshConnect) {
            check(ucc_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 0))
        }
        // `.cookieJar` is undone when the transfer ends (EasyHandlePool.recycle), as the jar may go away.
        handle.requestOptions = options.intersection(.cookieJar)
    }

    private static func configureMethodAndBody(_ transfer: Transfer, check: (CURLcode) -> Void) {
        let handle = transfer.handle
        let easy = handle.easy
        let request = transfer.request
        switch request.method {
        case .get where request.body == nil:
            return  // the handle's method is GET: set so by default and by `undoRequestOptions`
        case .head:
            check(ucc_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
            handle.requestOptions.insert(.noBody)
            return
        case .post:
            check(ucc_easy_setopt_long(easy, CURLOPT_POST, 1))
            handle.requestOptions.insert(.body)
        default:
            check(ucc_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
            handle.requestOptions.insert(.customMethod)
        }
        guard request.method == .post || request.body != nil else { return }
        handle.requestOptions.insert(.body)
        let body = request.body ?? Data()
        check(ucc_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        // COPYPOSTFIELDS copies the bytes now: libcurl never points into Swift-owned memory.
        body.withUnsafeBytes { bytes in
            if let pointer = bytes.baseAddress {
                check(ucc_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer)))
            } else {
                "".withCString { empty in
                    check(
                        ucc_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: empty)))
                }
            }
        }
    }

    /// The request's header lines, then the configured `User-Agent` and `Expect:` unless the request sets them.
    ///
    /// The user agent goes in the list, not in `CURLOPT_USERAGENT`, which libcurl formats anew on every request.
    private static func headerList(
        for headers: CurlHTTPClient.Headers,
        configuration: CurlHTTPClient.Configuration
    ) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for field in headers {
            // "Name;" is libcurl's way to send a header with an empty value.
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            list = curl_slist_append(list, line)
        }
        if !configuration.userAgent.isEmpty, !headers.contains("User-Agent") {
            list = curl_slist_append(list, "User-Agent: \(configuration.userAgent)")
        }
        if !headers.contains("Expect") {
            // No "Expect: 100-continue" round trip before larger bodies.
            list = curl_slist_append(list, "Expect:")
        }
        return list
    }

    /// Whether the URL starts with `https://`, in any case, without allocating.
    static func isHTTPS(_ url: String) -> Bool {
        var bytes = url.utf8.makeIterator()
        for expected in "https://".utf8 {
            guard let byte = bytes.next() else { return false }
            let lowered = (65...90).contains(byte) ? byte | 0x20 : byte
            guard lowered == expected else { return false }
        }
        return true
    }
}
