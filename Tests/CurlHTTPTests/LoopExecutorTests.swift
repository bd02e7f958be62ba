import CurlHTTP
import FixtureSupport
import Foundation
import Testing

/// `client.executor`: tasks that prefer it run on the client's loop thread, with every guarantee of `execute` kept.
@Suite("Tasks on the client's executor")
struct LoopExecutorTests {
    private static func currentThread() -> UInt { UInt(pthread_self()) }

    @Test("tasks that prefer the client's executor run on its loop thread and get every answer")
    func tasksRunOnTheLoopThread() async throws {
        let tenant = try await FixtureServer.tenant("executor")
        let client = try CurlHTTPClient()
        let threads = try await withThrowingTaskGroup(of: Set<UInt>.self) { group in
            for _ in 0..<8 {
                group.addTask(executorPreference: client.executor) {
                    var seen: Set<UInt> = [Self.currentThread()]
                    for _ in 0..<25 {
                        let response = try await client.execute(.init(url: tenant.url("/api/feature-flags")))
                        #expect(response.status == 200)
                        #expect(!response.body.isEmpty)
                        seen.insert(Self.currentThread())
                    }
                    return seen
                }
            }
            var all: Set<UInt> = []
            for try await seen in group { all.formUnion(seen) }
            return all
        }
        #expect(threads.count == 1)
        #expect(!threads.contains(Self.currentThread()))
        #expect(try await tenant.counters().route("GET /api/feature-flags") == 200)
        await client.shutdown()
    }

    @Test("work without any request runs on an idle loop too")
    func jobsWakeAnIdleLoop() async throws {
        let client = try CurlHTTPClient()
        for value in 0..<20 {
            // The loop is parked in curl_multi_poll between these: each job must wake it.
            let result = await withTaskExecutorPreference(client.executor) { value * 2 }
            #expect(result == value * 2)
        }
        await client.shutdown()
    }

    @Test("cancelling a task on the executor removes its transfer and throws cancelled")
    func cancellationOnTheExecutor() async throws {
        let tenant = try await FixtureServer.tenant("executorcancel")
        // Held until released: the request is surely in flight when the test acts, however slowly it runs.
        try await tenant.holdAnswers(route: "GET /api/echo")
        let client = try CurlHTTPClient()
        let task = Task(executorPreference: client.executor) {
            try await client.execute(.init(url: tenant.url("/api/echo")))
        }
        try await waitUntil { try await tenant.counters().route("GET /api/echo") == 1 }
        task.cancel()
        #expect(errorCode(await task.result) == .cancelled)
        // The loop keeps serving after the cancellation.
        let next = try await withTaskExecutorPreference(client.executor) {
            try await client.execute(.init(url: tenant.url("/api/feature-flags")))
        }
        #expect(next.status == 200)
        try await tenant.releaseHeldAnswers()
        await client.shutdown()
    }

    @Test("a request on the executor still times out")
    func timeoutOnTheExecutor() async throws {
        let tenant = try await FixtureServer.tenant("executortimeout")
        try await tenant.inject(.delay(milliseconds: 3000), route: "GET /api/feature-flags")
        let client = try CurlHTTPClient()
        let result = await Task(executorPreference: client.executor) {
            try await client.execute(.init(url: tenant.url("/api/feature-flags"), timeout: .milliseconds(300)))
        }.result
        #expect(errorCode(result) == .timedOut)
        await client.shutdown()
    }

    @Test("shutdown fails the executor's waiting tasks with shutdown, and later tasks still run")
    func shutdownWithTasksOnTheExecutor() async throws {
        let tenant = try await FixtureServer.tenant("executorshutdown")
        // Held until released: the request is surely in flight when the test acts, however slowly it runs.
        try await tenant.holdAnswers(route: "GET /api/echo")
        let client = try CurlHTTPClient()
        let waiting = (0..<4).map { _ in
            Task(executorPreference: client.executor) {
                try await client.execute(.init(url: tenant.url("/api/echo")))
            }
        }
        try await waitUntil { try await tenant.counters().route("GET /api/echo") == 4 }
        // Shutdown awaited from a task on the executor itself returns too.
        await Task(executorPreference: client.executor) { await client.shutdown() }.value
        for task in waiting { #expect(errorCode(await task.result) == .shutdown) }

        // After shutdown the executor's jobs run on the global executor: the task finishes with `shutdown`.
        let late = await Task(executorPreference: client.executor) {
            try await client.execute(.init(url: tenant.url("/api/feature-flags")))
        }.result
        #expect(errorCode(late) == .shutdown)
        #expect(await withTaskExecutorPreference(client.executor) { 7 } == 7)
        try await tenant.releaseHeldAnswers()
    }
}
