import CurlHTTP
import FixtureSupport
import Foundation

/// The walkthrough of the transport: a few real requests against the bank fixture server,
/// one row each. Exits non-zero when an expectation fails, so it doubles as a smoke test.
@main
struct DemoMain {
    static func main() async {
        do {
            try await TransportWalkthrough().run()
        } catch {
            print("demo failed: \(error)")
            exit(1)
        }
    }
}

struct TransportWalkthrough {
    func run() async throws {
        let tenant = try await FixtureServer.tenant("demo")
        let client = try CurlHTTPClient()
        print(
            "UnifiedCache demo — transport (libcurl \(CurlHTTPClient.libcurlVersion)) against \(tenant.server.baseURL)")
        print(Row.header)

        let alice: CurlHTTPClient.Headers = ["Authorization": FixtureTenant.User.alice.authorization]
        var failures: [String] = []
        func step(_ title: String, _ request: CurlHTTPClient.Request, expect status: Int) async throws {
            let response = try await client.execute(request)
            print(Row(title: title, response: response).text)
            if response.status != status { failures.append("\(title): expected \(status), got \(response.status)") }
        }

        try await step("feature flags (public)", .init(url: tenant.url("/api/feature-flags")), expect: 200)
        try await step("accounts without a token", .init(url: tenant.url("/api/accounts")), expect: 401)
        try await step("alice's accounts", .init(url: tenant.url("/api/accounts"), headers: alice), expect: 200)
        try await step("alice's accounts again", .init(url: tenant.url("/api/accounts"), headers: alice), expect: 200)
        let payment = Data(#"{"fromAccountId":"101","payeeId":"payee-alice-1","amount":12.5,"reference":"demo"}"#.utf8)
        var json = alice
        json.add(name: "Content-Type", value: "application/json")
        try await step(
            "alice pays a payee",
            .init(method: .post, url: tenant.url("/api/payments"), headers: json, body: payment),
            expect: 201
        )

        let counters = try await tenant.counters()
        print(
            "\nupstream requests counted by the fixture: \(counters.requests) over \(counters.connections) connection(s)"
        )
        await client.shutdown()
        guard failures.isEmpty else { throw FixtureError(failures.joined(separator: "; ")) }
        print("all expectations met")
    }
}

struct Row {
    static let header = "step                              status  latency     bytes  new conn"
    let text: String

    init(title: String, response: CurlHTTPClient.Response) {
        let latency = String(
            format: "%.2f ms",
            Double(response.timings.total.components.attoseconds) / 1e15
                + Double(response.timings.total.components.seconds) * 1e3)
        text =
            title.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(response.status).padding(toLength: 8, withPad: " ", startingAt: 0)
            + latency.padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(response.body.count).padding(toLength: 7, withPad: " ", startingAt: 0)
            + String(response.timings.newConnections)
    }
}
