import CCurl
import Foundation

/// An async HTTP client over libcurl's multi interface.
///
/// One dedicated thread drives all transfers, so thousands of concurrent requests cost one thread,
/// and connections are reused through libcurl's connection cache (keep-alive, HTTP/2 multiplexing).
/// Requests may be made from any task; cancelling the task removes the transfer.
///
/// Named `CurlHTTPClient` so it never clashes with AsyncHTTPClient's `HTTPClient` in Vapor apps.
public final class CurlHTTPClient: Sendable {
    /// The settings this client was created with.
    public let configuration: Configuration
    private let loop: CurlEventLoop

    /// Creates a client and starts its event-loop thread.
    ///
    /// - Throws: ``CurlHTTPError`` with code `other` if libcurl cannot be initialised.
    public init(configuration: Configuration = Configuration()) throws(CurlHTTPError) {
        self.configuration = configuration
        self.loop = try CurlEventLoop(configuration: configuration)
    }

    deinit {
        // No request can be in flight: each one keeps the client alive until it returns.
        loop.requestStop()
    }

    /// The client's event-loop thread as a task executor.
    ///
    /// Requests run on one thread that drives libcurl; a task on the global executor that awaits one is woken on
    /// another thread when the answer arrives, and its next request wakes the loop again. A task that prefers this
    /// executor skips both hops: its requests and the code between them run on the loop thread, which is what a
    /// bare libcurl loop costs.
    ///
    /// ```swift
    /// let balances = await withTaskExecutorPreference(client.executor) {
    ///     await fetchBalances(of: accounts, with: client)  // a fan-out of upstream calls
    /// }
    /// ```
    ///
    /// Worth it for tasks that mostly wait on upstreams. Whatever runs there delays every transfer of this client
    /// while it runs, so keep CPU-heavy work (large JSON, rendering) on the global executor. After ``shutdown()``,
    /// jobs for this executor run on the global executor.
    public var executor: any TaskExecutor { loop }

    /// The version of the libcurl this client runs on.
    public static var libcurlVersion: String { CurlGlobal.version }

    /// Performs a request and returns the complete response, whatever its status.
    ///
    /// - Throws: ``CurlHTTPError``: invalid input before any I/O, transport failures, `cancelled` when the
    ///   task is cancelled, `shutdown` after ``shutdown()``. An HTTP error status is not thrown.
    public func execute(_ request: Request) async throws(CurlHTTPError) -> Response {
        let request = configuration.decorated(request)
        try RequestValidation.validate(request, configuration: configuration)
        if Task.isCancelled {
            let target = RequestValidation.redacted(request.url)
            throw CurlHTTPError(.cancelled, "The task was cancelled before \(target) was requested.")
        }
        guard let handle = loop.easyHandles.take() else {
            throw CurlHTTPError(.other, "libcurl could not allocate an easy handle.")
        }
        let transfer = Transfer(
            handle: handle,
            request: request,
            maximumResponseSize: configuration.maximumResponseSize
        )
        do {
            try EasyHandleSetup.configure(transfer, configuration: configuration)
        } catch {
            loop.easyHandles.recycle(handle, keepingOptions: false)
            throw error
        }

        let end = await withTaskCancellationHandler {
            await Transfer.withContinuation { (continuation: Transfer.Continuation) in
                guard transfer.attach(continuation) else {
                    continuation.resume(
                        returning: .failed(
                            CurlHTTPError(.cancelled, "The request to \(transfer.redactedURL) was cancelled.")))
                    return
                }
                do throws(CurlHTTPError) {
                    try loop.submit(transfer)
                } catch {
                    transfer.finish(.failed(error))
                }
            }
        } onCancel: {
            if transfer.requestCancellation() { loop.cancel(transfer) }
        }
        transfer.acknowledgeEnd()
        // The loop has let go of the handle: the answer is read from it here, on the caller's thread, which keeps
        // the one loop thread free for libcurl.
        let outcome: Result<Response, CurlHTTPError>
        switch end {
        case .completed(let code) where code == CURLE_OK:
            outcome = .success(ResponseAssembly.response(of: transfer))
        case .completed(let code):
            outcome = .failure(CurlCodeMapping.error(for: code, transfer: transfer))
        case .failed(let error):
            outcome = .failure(error)
        }
        // A handle whose transfer failed or was sent twice is reset before its next use.
        let succeededOnce = end.isSuccess && !transfer.attempts.hasResent
        loop.easyHandles.recycle(handle, keepingOptions: succeededOnce)
        return try outcome.get()
    }

    /// Stops the client: requests in flight fail with `shutdown`, later ones are refused with `shutdown`.
    /// Returns once the event-loop thread has released libcurl. Calling it again does nothing.
    public func shutdown() async {
        await loop.stop()
    }
}
