import CCurl
import Foundation

/// Builds the public response of a finished transfer from its buffers and libcurl's counters. Runs on the waiting
/// task, after the loop removed the handle from the multi handle and before the handle goes back to the pool.
enum ResponseAssembly {
    static func response(of transfer: Transfer) -> CurlHTTPClient.Response {
        let easy = transfer.easy
        if transfer.handle.requestOptions.contains(.ownCookieEngine), let jar = transfer.request.cookieJar {
            jar.adopt(netscapeLines: CookieJar.netscapeLines(of: easy))
        }
        var status = 0
        _ = ucc_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var effectiveURL: UnsafeMutablePointer<CChar>?
        _ = ucc_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effectiveURL)
        var version = 0
        _ = ucc_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var newConnections = 0
        _ = ucc_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &newConnections)

        func micros(_ info: CURLINFO) -> Duration {
            var value: curl_off_t = 0
            _ = ucc_easy_getinfo_off_t(easy, info, &value)
            return .microseconds(value)
        }
        let timings = CurlHTTPClient.Timings(
            nameLookup: micros(CURLINFO_NAMELOOKUP_TIME_T),
            connect: micros(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: micros(CURLINFO_APPCONNECT_TIME_T),
            firstByte: micros(CURLINFO_STARTTRANSFER_TIME_T),
            total: micros(CURLINFO_TOTAL_TIME_T),
            newConnections: newConnections
        )
        return CurlHTTPClient.Response(
            status: status,
            headers: CurlHTTPClient.Headers(received: ReceivedHeaderBlock(copying: transfer.handle.headerBytes)),
            body: transfer.body,
            effectiveURL: effectiveURL.map { url(of: $0, reusing: transfer.request.url) } ?? transfer.request.url,
            httpVersion: httpVersionName(version),
            timings: timings
        )
    }

    /// The request's own URL string when libcurl's effective URL is the same (no redirect): no copy.
    private static func url(of cString: UnsafeMutablePointer<CChar>, reusing requestURL: String) -> String {
        let same = requestURL.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return cString[0] == 0 }
            return strlen(cString) == bytes.count && memcmp(cString, base, bytes.count) == 0
        }
        return same == true ? requestURL : String(cString: cString)
    }

    private static func httpVersionName(_ version: Int) -> String {
        switch version {
        case CURL_HTTP_VERSION_1_0: return "1.0"
        case CURL_HTTP_VERSION_1_1: return "1.1"
        case CURL_HTTP_VERSION_2_0: return "2"
        case 30: return "3"  // CURL_HTTP_VERSION_3
        default: return "?"
        }
    }
}
