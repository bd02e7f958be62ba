import Synchronization

/// What both Redis event loops keep under their lock about their thread's life.
protocol RedisLoopState {
    /// The thread runs (set by `start`, cleared when it finishes).
    var isRunning: Bool { get }
    /// Asked to stop: the thread finishes at its next turn.
    var stopRequested: Bool { get set }
    /// Callers of `stop()` waiting for the thread to finish.
    var onStopped: [CheckedContinuation<Void, Never>] { get set }
}

/// An event loop whose thread is stopped the same way: mark it, wake it, and wait until it is done.
protocol RedisLoopStopping: AnyObject {
    associatedtype State: RedisLoopState
    var shared: Mutex<State> { get }
    var wakePipe: RedisWakePipe { get }
}

extension RedisLoopStopping {
    /// Stops the thread; returns once it is done (at once when it never ran or has finished).
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = shared.withLock { shared in
                shared.stopRequested = true
                guard shared.isRunning else { return true }
                shared.onStopped.append(continuation)
                return false
            }
            wakePipe.wake()
            if resumeNow { continuation.resume() }
        }
    }
}
