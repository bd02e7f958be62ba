import FixtureSupport
import Foundation
import UnifiedCache

/// `make demo`: the whole system doing its job against the bank fixture server (started on a free port unless
/// `UCACHE_FIXTURE_URL` names one). Exits non-zero when an expectation of the scenario fails, so it doubles as an
/// end-to-end check.
@main
struct DemoMain {
    static func main() async {
        do {
            let tenant = try await FixtureServer.tenant("demo")
            print("UnifiedCache demo — a BFF serving two users (libcurl \(CurlHTTPClient.libcurlVersion))")
            print("upstream: \(tenant.baseURL) (REST /api, GraphQL /graphql)\n")
            let failures = try await Walkthrough(tenant: tenant).run()
            guard failures.isEmpty else {
                print("\n\(failures.count) expectation(s) failed:")
                for failure in failures { print("  - \(failure)") }
                exit(1)
            }
            print("\nall expectations met")
        } catch {
            print("demo failed: \(error)")
            exit(1)
        }
    }
}
