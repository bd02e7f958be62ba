import CCurl
import Foundation

/// Sets every libcurl option of a transfer from its request and the client's configuration.
enum EasyHandleSetup {
    static func configure(
        _ transfer: Transfer,
        configuration: CurlHTTPClient.Configuration
    ) throws(CurlHTTPError) {
        let easy = transfer.easy
        let request = transfer.request
        var failures: [CURLcode] = []
        func check(_ code: CURLcode) { if code != CURLE_OK { failures.append(code) } }

        check(ucc_easy_setopt_string(easy, CURLOPT_URL, request.url))
        check(ucc_easy_restrict_to_http(easy))
        check(ucc_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        check(ucc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer))

        let userData = Unmanaged.passUnretained(transfer).toOpaque()
        check(ucc_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, TransferCallbacks.body))
        check(ucc_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, userData))
        check(ucc_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, TransferCallbacks.header))
        check(ucc_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, userData))
        if ucc_easy_setopt_prereq(easy, TransferCallbacks.beforeAttempt, userData) != CURLE_OK,
            !request.allowsAutomaticRetry
        {
            // libcurl before 7.80 has no pre-request callback: libcurl only resends on a reused connection,
            // so a non-idempotent request gets a new one.
            check(ucc_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1))
        }

        let total = request.timeout ?? configuration.totalTimeout
        check(ucc_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.roundedUpMilliseconds))
        check(ucc_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, total.roundedUpMilliseconds))
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
        if configuration.enableHTTP2 {
            check(ucc_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS))
            // Waiting for a connection to multiplex on pays only where HTTP/2 can be negotiated (TLS); over plain
            // HTTP it would queue concurrent requests behind one HTTP/1.1 connection (head-of-line blocking).
            let isTLS = request.url.utf8.count >= 8 && request.url.prefix(8).lowercased() == "https://"
            check(ucc_easy_setopt_long(easy, CURLOPT_PIPEWAIT, isTLS ? 1 : 0))
        } else {
            check(ucc_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1))
        }
        if configuration.acceptCompressedResponses {
            check(ucc_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        }
        if !request.headers.contains("User-Agent") {
            check(ucc_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent))
        }
        if let jar = request.cookieJar {
            // The share must be attached before the cookie engine is switched on, or the handle
            // would start a private cookie store of its own.
            check(ucc_easy_setopt_share(easy, jar.share.handle))
            check(ucc_easy_setopt_string(easy, CURLOPT_COOKIEFILE, ""))
        }

        configureMethodAndBody(transfer, check: check)
        transfer.headerList = headerList(for: request)
        check(ucc_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList))

        if let failure = failures.first {
            throw CurlHTTPError(
                .other,
                "libcurl refused an option of the request.",
                curlCode: Int(failure.rawValue),
                curlMessage: String(cString: curl_easy_strerror(failure))
            )
        }
    }

    private static func configureMethodAndBody(_ transfer: Transfer, check: (CURLcode) -> Void) {
        let easy = transfer.easy
        let request = transfer.request
        switch request.method {
        case .get where request.body == nil:
            check(ucc_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
            return
        case .head:
            check(ucc_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
            return
        case .post:
            check(ucc_easy_setopt_long(easy, CURLOPT_POST, 1))
        default:
            check(ucc_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        }
        guard request.method == .post || request.body != nil else { return }
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

    private static func headerList(for request: CurlHTTPClient.Request) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for field in request.headers {
            // "Name;" is libcurl's way to send a header with an empty value.
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            list = curl_slist_append(list, line)
        }
        if !request.headers.contains("Expect") {
            // No "Expect: 100-continue" round trip before larger bodies.
            list = curl_slist_append(list, "Expect:")
        }
        return list
    }
}
