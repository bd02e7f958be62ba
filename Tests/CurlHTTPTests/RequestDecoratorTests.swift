import CurlHTTP
import FixtureSupport
import Foundation
import Testing

/// A per-request value the decorator reads, as a tracing integration reads `ServiceContext.current`.
enum RequestContext {
    @TaskLocal static var traceID: String?
}

@Suite("The request decorator changes each request in the caller's task")
struct RequestDecoratorTests {
    @Test("it sees the caller's task-local values and its header reaches the upstream")
    func taskLocalsReachTheUpstream() async throws {
        let tenant = try await FixtureServer.tenant("decorator")
        var configuration = CurlHTTPClient.Configuration()
        configuration.requestDecorator = { request in
            if let traceID = RequestContext.traceID {
                request.headers.replaceOrAdd(name: "traceparent", value: "00-\(traceID)-00f067aa0ba902b7-01")
            }
        }
        let client = try CurlHTTPClient(configuration: configuration)
        let traced = try await RequestContext.$traceID.withValue("4bf92f3577b34da6a3ce929d0e0e4736") {
            try await client.execute(.init(url: tenant.url("/api/echo")))
        }
        let untraced = try await client.execute(.init(url: tenant.url("/api/echo")))

        #expect(
            try EchoReply(traced.body).header("traceparent")
                == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(try EchoReply(untraced.body).header("traceparent") == nil)
        await client.shutdown()
    }

    @Test("what it sets is validated like the caller's own headers: a header with a line break is refused")
    func decoratedRequestIsValidated() async throws {
        let tenant = try await FixtureServer.tenant("decoratorbad")
        var configuration = CurlHTTPClient.Configuration()
        configuration.requestDecorator = { request in
            request.headers.replaceOrAdd(name: "traceparent", value: "bad\r\nX-Injected: 1")
        }
        let client = try CurlHTTPClient(configuration: configuration)
        await #expect(throws: CurlHTTPError.self) { try await client.execute(.init(url: tenant.url("/api/echo"))) }
        #expect(try await tenant.counters().route("GET /api/echo") == 0)
        await client.shutdown()
    }
}
