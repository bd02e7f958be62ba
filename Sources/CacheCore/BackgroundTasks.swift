import Synchronization

/// Tasks started in the background (refreshes of `returnCacheDataAndFetch`, background refetches), so tests
/// and shutdown can wait for them.
public final class BackgroundTasks: Sendable {
    private struct State {
        var nextID = 0
        var tasks: [Int: Task<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Starts `work` in a task of its own; returns the task.
    @discardableResult
    public func start(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            // Registered under the lock the task needs to deregister, so it can never deregister first.
            let task = Task {
                await work()
                _ = self.state.withLock { $0.tasks.removeValue(forKey: id) }
            }
            state.tasks[id] = task
            return task
        }
    }

    /// Waits until every task started so far (and any they start) has finished.
    public func drain() async {
        while let task = state.withLock({ $0.tasks.values.first }) {
            await task.value
        }
    }
}
