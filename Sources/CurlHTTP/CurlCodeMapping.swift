import CCurl

/// Maps libcurl's result codes to the stable codes of ``CurlHTTPError``.
///
/// Numeric values are used on purpose: some names changed across libcurl releases
/// (`CURLE_SSL_CACERT` became `CURLE_PEER_FAILED_VERIFICATION`), the numbers did not.
enum CurlCodeMapping {
    static func error(for code: CURLcode, transfer: Transfer) -> CurlHTTPError {
        let raw = Int(code.rawValue)
        let curlMessage =
            transfer.curlMessage.isEmpty
            ? String(cString: curl_easy_strerror(code))
            : transfer.curlMessage
        let target = transfer.redactedURL
        func make(_ code: CurlHTTPError.Code, _ message: String) -> CurlHTTPError {
            CurlHTTPError(code, message, curlCode: raw, curlMessage: curlMessage)
        }

        if transfer.exceededMaximumSize || raw == 63 {  // 63: CURLE_FILESIZE_EXCEEDED
            return make(.tooLarge, "The response from \(target) is larger than \(transfer.maximumResponseSize) bytes.")
        }
        switch transfer.attempts.refusal {
        case .notIdempotent:
            return make(
                .notRetried,
                "The connection to \(target) closed before any answer to a \(transfer.request.method) request. "
                    + "The request may have reached the server; it is not idempotent, so it was not sent again.")
        case .retriedOnce:
            return make(
                .connectionClosed, "The connection to \(target) closed before any answer, again after one retry.")
        case nil:
            break
        }
        switch raw {
        case 1:  // CURLE_UNSUPPORTED_PROTOCOL (also a redirect to a forbidden scheme)
            return make(.unsupportedScheme, "Only http and https URLs can be fetched (\(target)).")
        case 3:  // CURLE_URL_MALFORMAT
            return make(.invalidURL, "The URL is malformed.")
        case 5, 6, 7:  // COULDNT_RESOLVE_PROXY, COULDNT_RESOLVE_HOST, COULDNT_CONNECT
            return make(.connectFailed, "Could not connect to \(target).")
        case 28:  // CURLE_OPERATION_TIMEDOUT
            return make(.timedOut, "The request to \(target) timed out.")
        case 35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98:  // TLS family
            return make(.tls, "The TLS connection to \(target) failed.")
        case 47:  // CURLE_TOO_MANY_REDIRECTS
            return make(.tooManyRedirects, "Too many redirects from \(target).")
        case 52, 55, 56:  // GOT_NOTHING, SEND_ERROR, RECV_ERROR
            return make(.connectionClosed, "The connection to \(target) was closed before a response was complete.")
        case 18:  // CURLE_PARTIAL_FILE
            return make(.truncatedResponse, "The response from \(target) ended before its announced length.")
        case 8, 16, 61, 92:  // WEIRD_SERVER_REPLY, HTTP2, BAD_CONTENT_ENCODING, HTTP2_STREAM
            return make(.protocolError, "The server at \(target) sent an invalid HTTP response.")
        case 42:  // CURLE_ABORTED_BY_CALLBACK
            return make(.cancelled, "The request to \(target) was cancelled.")
        default:
            return make(.other, "The request to \(target) failed.")
        }
    }
}
