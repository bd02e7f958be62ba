import CCurl
import Foundation

/// The floor `CurlHTTPClient` is measured against: libcurl's multi interface driven as tightly as it goes.
///
/// One thread, `curl_multi_poll`, one easy handle per concurrent transfer set up once and re-added as soon as
/// it finishes (no reset, no option set again), the body only counted. No Swift concurrency, no locks, no
/// allocation per request on the Swift side: what remains is what libcurl itself needs for a request.
///
/// With `clientOptions`, each handle also gets, once, the libcurl options `CurlHTTPClient` sets for its guarantees
/// with its default configuration (protocols, timeouts, size limit, redirects, TLS checks, accepted encodings,
/// User-Agent and Expect: lines, error buffer, header and pre-request callbacks that do nothing): the gap between the
/// two bare rows is libcurl's own work for those guarantees, the gap to `CurlHTTPClient` the wrapper's.
enum BareCurlMultiBaseline {
    struct Result {
        var seconds: Double
        var cpuSeconds: Double
        var userSeconds: Double
        var samples: Samples
        var bytes: Int
    }

    /// Runs `total` GETs of `url` with `level` transfers in flight, after `warmUp` untimed ones that open the
    /// connections. Blocks the calling thread: run it on a thread of its own (see ``measure``).
    static func run(url: String, level: Int, total: Int, warmUp: Int, clientOptions: Bool) throws -> Result {
        let loop = try Loop(url: url, level: level, clientOptions: clientOptions)
        defer { loop.close() }
        _ = try loop.perform(total: warmUp)
        let cpuBefore = ProcessCPU.now()
        let userBefore = ProcessCPU.user()
        let start = monotonicNanoseconds()
        let samples = try loop.perform(total: total)
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        return Result(
            seconds: seconds, cpuSeconds: ProcessCPU.now() - cpuBefore, userSeconds: ProcessCPU.user() - userBefore,
            samples: samples, bytes: loop.counter.bytes)
    }

    /// ``run`` on a dedicated thread, so the cooperative pool is neither blocked nor charged.
    static func measure(
        url: String, level: Int, total: Int, warmUp: Int, clientOptions: Bool = false
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            let thread = Thread {
                continuation.resume(
                    with: Swift.Result {
                        try run(url: url, level: level, total: total, warmUp: warmUp, clientOptions: clientOptions)
                    })
            }
            thread.name = "bare libcurl-multi"
            thread.start()
        }
    }

    /// Bytes received, written by the write callback (loop thread only).
    final class ByteCounter {
        var bytes = 0
    }

    /// The multi handle and its easy handles. Used by one thread only.
    final class Loop {
        let multi: UnsafeMutableRawPointer
        var handles: [UnsafeMutableRawPointer] = []
        let counter = ByteCounter()
        /// When each running handle was added, by slot; the slot of a handle is its `CURLOPT_PRIVATE`.
        var startedAt: [UInt64]
        /// The client options' header lines and error buffer, freed in `close`.
        var headerList: UnsafeMutablePointer<curl_slist>?
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(ucc_error_size))

        init(url: String, level: Int, clientOptions: Bool) throws {
            guard let multi = curl_multi_init() else { throw BenchError("curl_multi_init failed") }
            self.multi = multi
            self.startedAt = Array(repeating: 0, count: level)
            _ = ucc_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 64)
            let counterPointer = Unmanaged.passUnretained(counter).toOpaque()
            for slot in 0..<level {
                guard let easy = curl_easy_init() else { throw BenchError("curl_easy_init failed") }
                _ = ucc_easy_setopt_string(easy, CURLOPT_URL, url)
                _ = ucc_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
                _ = ucc_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, countBytes)
                _ = ucc_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, counterPointer)
                _ = ucc_easy_setopt_pointer(easy, CURLOPT_PRIVATE, UnsafeMutableRawPointer(bitPattern: slot + 1))
                if clientOptions { setClientOptions(easy) }
                handles.append(easy)
            }
        }

        /// What EasyHandleSetup sets for a GET with the default configuration, set once.
        private func setClientOptions(_ easy: UnsafeMutableRawPointer) {
            if headerList == nil {
                headerList = curl_slist_append(nil, "User-Agent: UnifiedCache-CurlHTTP/1")
                headerList = curl_slist_append(headerList, "Expect:")
            }
            _ = ucc_easy_restrict_to_http(easy)
            _ = ucc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
            _ = ucc_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, ignoreHeader)
            _ = ucc_easy_setopt_prereq(easy, allowAttempt, nil)
            _ = ucc_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, 10_000)
            _ = ucc_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, 30_000)
            _ = ucc_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, 16 * 1024 * 1024)
            _ = ucc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
            _ = ucc_easy_setopt_long(easy, CURLOPT_MAXREDIRS, 5)
            _ = ucc_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
            _ = ucc_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
            _ = ucc_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
            _ = ucc_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 0)
            _ = ucc_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
            _ = ucc_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
        }

        /// Runs until `total` transfers completed, keeping every handle busy while work remains.
        func perform(total: Int) throws -> Samples {
            var samples = Samples()
            samples.reserve(total)
            var started = 0
            var completed = 0
            for (slot, easy) in handles.enumerated() where started < total {
                startedAt[slot] = monotonicNanoseconds()
                curl_multi_add_handle(multi, easy)
                started += 1
            }
            var running: Int32 = 0
            while completed < total {
                curl_multi_perform(multi, &running)
                var remaining: Int32 = 0
                while let message = curl_multi_info_read(multi, &remaining) {
                    guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                    let result = ucc_multi_message_result(message)
                    guard result == CURLE_OK else {
                        throw BenchError("bare libcurl: \(String(cString: curl_easy_strerror(result)))")
                    }
                    var status = 0
                    _ = ucc_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                    guard status == 200 else { throw BenchError("bare libcurl: status \(status)") }
                    let slot = slotOf(easy)
                    let now = monotonicNanoseconds()
                    samples.append(now - startedAt[slot])
                    completed += 1
                    curl_multi_remove_handle(multi, easy)
                    if started < total {
                        startedAt[slot] = now
                        curl_multi_add_handle(multi, easy)
                        started += 1
                    }
                }
                if completed < total { curl_multi_poll(multi, nil, 0, 1000, nil) }
            }
            return samples
        }

        func slotOf(_ easy: UnsafeMutableRawPointer) -> Int {
            var raw: UnsafeMutablePointer<CChar>?
            _ = ucc_easy_getinfo_string(easy, CURLINFO_PRIVATE, &raw)
            return Int(bitPattern: raw) - 1
        }

        func close() {
            for easy in handles {
                curl_multi_remove_handle(multi, easy)
                curl_easy_cleanup(easy)
            }
            curl_multi_cleanup(multi)
            curl_slist_free_all(headerList)
            errorBuffer.deallocate()
        }
    }

    static let ignoreHeader: curl_write_callback = { _, size, count, _ in size * count }
    static let allowAttempt: ucc_prereq_callback = { _, _, _, _, _ in ucc_prereq_ok }

    /// Counts the body and drops it.
    static let countBytes: curl_write_callback = { _, size, count, userData in
        guard let userData else { return 0 }
        Unmanaged<ByteCounter>.fromOpaque(userData).takeUnretainedValue().bytes += size * count
        return size * count
    }
}
