import CCurl

/// libcurl's process-wide initialisation, done once before the first handle is created.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(ucc_global_all) == CURLE_OK
    }()

    static func initializeOnce() {
        _ = initialized
    }

    /// The libcurl version string, e.g. `"8.5.0"`, for diagnostics and benchmarks.
    static var version: String {
        initializeOnce()
        guard let info = curl_version_info(ucc_version_now), let version = info.pointee.version else { return "?" }
        return String(cString: version)
    }
}
