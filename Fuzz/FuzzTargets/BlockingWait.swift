import Dispatch
import Synchronization

/// Runs async work to completion from synchronous code: libFuzzer calls its callback on a plain thread, and the hub's
/// read paths are async. The calling thread waits; the work runs on the global executor.
func waitFor<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
    let result = Mutex<Value?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await work()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0.take() }!
}
