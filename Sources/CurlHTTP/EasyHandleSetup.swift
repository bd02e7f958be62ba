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
        var status = OptionStatus()

        if !handle.hasSharedOptions {
            setSharedOptions(of: handle, configuration: configuration, status: &status)
            handle.hasSharedOptions = status.failure == CURLE_OK
        }
        undoRequestOptions(of: handle, configuration: configuration, status: &status)
        handle.errorBuffer[0] = 0
        handle.headerBytes.removeAll(keepingCapacity: true)

        // withCString, not the implicit String-to-pointer conversion, which copies the string into a new array.
        status.check(request.url.withCString { ucc_easy_setopt_string(easy, CURLOPT_URL, $0) })
        let userData = Unmanaged.passUnretained(transfer).toOpaque()
        status.check(ucc_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, userData))
        status.check(ucc_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, userData))
        if handle.hasPrerequestCallback {
            status.check(ucc_easy_setopt_prereq_data(easy, userData))
        } else if !request.allowsAutomaticRetry {
            // libcurl before 7.80 has no pre-request callback: libcurl only resends on a reused connection,
            // so a non-idempotent request gets a new one.
            status.check(ucc_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1))
            handle.requestOptions.insert(.freshConnect)
        }

        let total = request.timeout ?? configuration.totalTimeout
        status.check(ucc_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, total.roundedUpMilliseconds))
        if configuration.enableHTTP2 {
            // Waiting for a connection to multiplex on pays only where HTTP/2 can be negotiated (TLS); over plain
            // HTTP it would queue concurrent requests behind one HTTP/1.1 connection (head-of-line blocking).
            status.check(ucc_easy_setopt_long(easy, CURLOPT_PIPEWAIT, isHTTPS(request.url) ? 1 : 0))
        }
        if let jar = request.cookieJar {
            if let share = jar.transferShare {
                // The share must be attached before the cookie engine is switched on, or the handle
                // would start a private cookie store of its own.
                status.check(ucc_easy_setopt_share(easy, share.handle))
                status.check(ucc_easy_setopt_string(easy, CURLOPT_COOKIEFILE, ""))
                handle.requestOptions.insert(.cookieJar)
            } else {
                // No cookie yet: the handle's own engine parses what the answer sets; the transfer's end moves it
                // into the jar (`ResponseAssembly`) and the pool empties the handle's store (`EasyHandlePool`).
                status.check(ucc_easy_setopt_string(easy, CURLOPT_COOKIEFILE, ""))
                handle.requestOptions.insert(.ownCookieEngine)
            }
        }

        configureMethodAndBody(transfer, status: &status)
        if request.headers.count == 0 {
            status.check(ucc_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, handle.defaultHeaderList))
        } else {
            transfer.headerList = headerList(for: request.headers, configuration: configuration)
            status.check(ucc_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList))
        }

        if status.failure != CURLE_OK {
            throw CurlHTTPError(
                .other,
                "libcurl refused an option of the request.",
                curlCode: Int(status.failure.rawValue),
                curlMessage: String(cString: curl_easy_strerror(status.failure))
            )
        }
    }

    /// The options every request of the client shares, set on a new or reset handle.
    private static func setSharedOptions(
        of handle: PooledEasyHandle,
        configuration: CurlHTTPClient.Configuration,
        status: inout OptionStatus
    ) {
        let easy = handle.easy
        status.check(ucc_easy_restrict_to_http(easy))
        status.check(ucc_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        status.check(ucc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, handle.errorBuffer))
        status.check(ucc_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, TransferCallbacks.body))
        status.check(ucc_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, TransferCallbacks.header))
        // Installed without user data (the callback then refuses every attempt); each request sets its transfer.
        handle.hasPrerequestCallback = ucc_easy_setopt_prereq(easy, TransferCallbacks.beforeAttempt, nil) == CURLE_OK

        status.check(
            ucc_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.roundedUpMilliseconds))
        status.check(
            ucc_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maximumResponseSize)))

        switch configuration.redirectPolicy {
        case .never:
            status.check(ucc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        case .follow(let maximum):
            status.check(ucc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1))
            status.check(ucc_easy_setopt_long(easy, CURLOPT_MAXREDIRS, max(0, maximum)))
        }

        status.check(ucc_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, configuration.tls.verifyPeer ? 1 : 0))
        status.check(ucc_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, configuration.tls.verifyPeer ? 2 : 0))
        if let caBundle = configuration.tls.caBundlePath {
            status.check(ucc_easy_setopt_string(easy, CURLOPT_CAINFO, caBundle))
        }
        let version = configuration.enableHTTP2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1
        status.check(ucc_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, version))
        if configuration.acceptCompressedResponses {
            status.check(ucc_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        }
        if handle.defaultHeaderList == nil {
            handle.defaultHeaderList = headerList(for: [:], configuration: configuration)
        }
    }

    /// Puts back what the previous request on this handle set for itself only.
    private static func undoRequestOptions(
        of handle: PooledEasyHandle,
        configuration: CurlHTTPClient.Configuration,
        status: inout OptionStatus
    ) {
        let easy = handle.easy
        let options = handle.requestOptions
        guard !options.isEmpty else { return }
        if options.contains(.customMethod) {
            status.check(ucc_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, nil))
        }
        if options.contains(.body) {
            // Frees the copied body; CURLOPT_HTTPGET below turns the method back from POST.
            status.check(ucc_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, nil))
            status.check(ucc_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, -1))
        }
        if options.contains(.body) || options.contains(.noBody) {
            status.check(ucc_easy_setopt_long(easy, CURLOPT_NOBODY, 0))
            status.check(ucc_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
        }
        if options.contains(.freshConnect) {
            status.check(ucc_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 0))
        }
        // `.cookieJar` and `.ownCookieEngine` are undone when the transfer ends (EasyHandlePool.recycle), as the jar
        // may go away.
        handle.requestOptions = options.intersection([.cookieJar, .ownCookieEngine])
    }

    private static func configureMethodAndBody(_ transfer: Transfer, status: inout OptionStatus) {
        let handle = transfer.handle
        let easy = handle.easy
        let request = transfer.request
        switch request.method {
        case .get where request.body == nil:
            return  // the handle's method is GET: set so by default and by `undoRequestOptions`
        case .head:
            status.check(ucc_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
            handle.requestOptions.insert(.noBody)
            return
        case .post:
            status.check(ucc_easy_setopt_long(easy, CURLOPT_POST, 1))
            handle.requestOptions.insert(.body)
        default:
            status.check(ucc_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
            handle.requestOptions.insert(.customMethod)
        }
        guard request.method == .post || request.body != nil else { return }
        handle.requestOptions.insert(.body)
        let body = request.body ?? Data()
        status.check(ucc_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        // COPYPOSTFIELDS copies the bytes now: libcurl never points into Swift-owned memory.
        body.withUnsafeBytes { bytes in
            if let pointer = bytes.baseAddress {
                status.check(
                    ucc_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer)))
            } else {
                "".withCString { empty in
                    status.check(
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

    /// The first option libcurl refused, if any. An inout struct rather than a closure over a local variable:
    /// a captured variable is checked for exclusive access at run time on every call, and this runs per request.
    struct OptionStatus {
        private(set) var failure = CURLE_OK

        mutating func check(_ code: CURLcode) {
            if code != CURLE_OK, failure == CURLE_OK { failure = code }
        }
    }

    /// Whether the URL starts with `https://`, in any case, without allocating.
    static func isHTTPS(_ url: String) -> Bool {
        var bytes = url.utf8.makeIterator()
        for expected in "https://".utf8 {
            guard let byte = bytes.next() else { return false }
            guard byte.lowercasedASCII == expected else { return false }
        }
        return true
    }
}
