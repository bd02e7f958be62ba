import CCurl

/// Decides whether libcurl may send a request again, and remembers why it was stopped.
///
/// libcurl silently resends a request when a *reused* keep-alive connection dies before any byte of the
/// answer arrived (`Curl_retry_request`: "Connection died, retrying a fresh connect"), up to five times, for
/// every method: a POST whose answer was lost is sent twice. Each attempt passes through the pre-request
/// callback (`CURLOPT_PREREQFUNCTION`) after its connection is ready and before anything is sent, and the
/// header callback sees every status line. An attempt that starts while the previous one received no status
/// line is such a silent resend; a redirect or an authentication round received one and is not.
/// Connections stay reused for every method: only the resend is refused.
///
/// Loop-thread only: both callbacks run on the event-loop thread (see `Transfer`).
struct SendAttempts {
    enum Refusal {
        /// A non-idempotent request would have been sent again.
        case notIdempotent
        /// An idempotent request was already sent again once.
        case retriedOnce
    }

    private var started = 0
    private var statusLinesSinceStart = 0
    private var resends = 0
    /// Why the latest attempt was refused, if it was.
    private(set) var refusal: Refusal?

    /// Whether libcurl sent the request again (on a new connection) at least once.
    var hasResent: Bool { resends > 0 || refusal != nil }

    /// Records a status line (`HTTP/…`) of an answer.
    mutating func receivedStatusLine() { statusLinesSinceStart += 1 }

    /// Whether the attempt libcurl is about to send may go ahead.
    mutating func mayStart(allowsRetry: Bool) -> Bool {
        if started > 0, statusLinesSinceStart == 0 {
            guard allowsRetry else {
                refusal = .notIdempotent
                return false
            }
            guard resends == 0 else {
                refusal = .retriedOnce
                return false
            }
            resends += 1
        }
        started += 1
        statusLinesSinceStart = 0
        return true
    }
}

extension TransferCallbacks {
    /// `CURLOPT_PREREQFUNCTION`: runs before each attempt; refuses silent resends `SendAttempts` forbids.
    static let beforeAttempt: ucc_prereq_callback = { userData, _, _, _, _ in
        guard let userData else { return ucc_prereq_abort }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        let allowed = transfer.attempts.mayStart(allowsRetry: transfer.request.allowsAutomaticRetry)
        return allowed ? ucc_prereq_ok : ucc_prereq_abort
    }
}
