import CCurl
import Foundation

/// Checks a request before any I/O, so bad input fails fast with a precise error and nothing
/// reaches the network: malformed URLs, schemes other than http/https, header injection,
/// oversized bodies.
enum RequestValidation {
    /// Throws when the request must not be sent. Allocates little: it runs on every request.
    static func validate(
        _ request: CurlHTTPClient.Request,
        configuration: CurlHTTPClient.Configuration
    ) throws(CurlHTTPError) {
        try validateURL(request.url)
        guard isToken(request.method.rawValue) else {
            throw CurlHTTPError(.invalidHeader, "The method is not a valid HTTP token.")
        }
        for field in request.headers {
            guard isToken(field.name) else {
                throw CurlHTTPError(
                    .invalidHeader, "A header name is empty or contains characters not allowed in a token.")
            }
            guard isSafeFieldValue(field.value) else {
                throw CurlHTTPError(.invalidHeader, "The value of header '\(field.name)' contains CR, LF or NUL.")
            }
        }
        if let body = request.body, body.count > configuration.maximumRequestBodySize {
            throw CurlHTTPError(
                .requestTooLarge,
                "The request body (\(body.count) bytes) is over the limit of \(configuration.maximumRequestBodySize) bytes."
            )
        }
    }

    /// Parses with libcurl's own URL parser, so what we accept is exactly what libcurl will fetch. A plain URL (see
    /// ``PlainURL``) skips the parse here: libcurl parses it anyway when the transfer starts, and the parse costs
    /// several allocations on every request.
    static func validateURL(_ url: String) throws(CurlHTTPError) {
        if PlainURL.isPlain(url) { return }
        try validateWithLibcurl(url)
    }

    /// What libcurl's URL parser says of the URL, as the error a caller gets.
    static func validateWithLibcurl(_ url: String) throws(CurlHTTPError) {
        guard let handle = curl_url() else { throw CurlHTTPError(.other, "libcurl could not allocate a URL handle.") }
        defer { curl_url_cleanup(handle) }

        let setCode = url.withCString { curl_url_set(handle, CURLUPART_URL, $0, 0) }
        guard setCode == CURLUE_OK else {
            if setCode == CURLUE_UNSUPPORTED_SCHEME {
                throw CurlHTTPError(.unsupportedScheme, "Only http and https URLs can be fetched.")
            }
            throw CurlHTTPError(.invalidURL, "The URL is malformed.", curlCode: Int(setCode.rawValue))
        }
        let isHTTP = withPart(handle, CURLUPART_SCHEME) { scheme in
            strcasecmp(scheme, "http") == 0 || strcasecmp(scheme, "https") == 0
        }
        guard isHTTP == true else {
            throw CurlHTTPError(.unsupportedScheme, "Only http and https URLs can be fetched.")
        }
        guard withPart(handle, CURLUPART_HOST, { host in host[0] != 0 }) == true else {
            throw CurlHTTPError(.invalidURL, "The URL has no host.")
        }
    }

    /// `scheme://host:port/path` of a URL, without userinfo, query or fragment: what error messages may show.
    /// Only needed when something went wrong, so computed then.
    static func redacted(_ url: String) -> String {
        guard let handle = curl_url() else { return "(URL)" }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else { return "(malformed URL)" }
        let scheme = part(handle, CURLUPART_SCHEME)?.lowercased() ?? "http"
        let host = part(handle, CURLUPART_HOST) ?? ""
        let port = part(handle, CURLUPART_PORT).map { ":\($0)" } ?? ""
        let path = part(handle, CURLUPART_PATH) ?? "/"
        return "\(scheme)://\(host)\(port)\(path)"
    }

    private static func part(_ handle: OpaquePointer, _ part: CURLUPart) -> String? {
        withPart(handle, part) { String(cString: $0) }
    }

    /// Runs `body` on a part as libcurl's C string, nil when the URL has no such part.
    private static func withPart<T>(
        _ handle: OpaquePointer, _ part: CURLUPart, _ body: (UnsafeMutablePointer<CChar>) -> T
    ) -> T? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, part, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return body(value)
    }

    /// RFC 9110 token: visible ASCII except delimiters.
    static func isToken(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        return text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// A field value must not smuggle a line break (header injection) or a NUL.
    static func isSafeFieldValue(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}
