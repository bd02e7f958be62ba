import FixtureSupport
import Foundation
import Testing

@Suite("The demo is an end-to-end check")
struct DemoRunTests {
    @Test("ucache-demo runs the whole scenario against the fixture server and meets every expectation")
    func demoSucceeds() async throws {
        let server = try await FixtureServer.shared()
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ucache-demo")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build ucache-demo first")

        var environment = ProcessInfo.processInfo.environment
        environment["UCACHE_FIXTURE_URL"] = server.baseURL
        // The demo runs for seconds (more under the sanitizers): wait for it off the cooperative pool.
        let (status, text) = try await offThePool { [environment] () throws -> (Int32, String) in
            let demo = try ChildProcess.spawn(binary.path, [], environment: environment, standardOutput: true)
            let data = demo.output?.readDataToEndOfFile() ?? Data()
            return (demo.wait(), String(decoding: data, as: UTF8.self))
        }

        #expect(status == 0, "\(text)")
        #expect(text.contains("all expectations met"))
        #expect(text.contains("alice logs out"))
        #expect(!text.contains("✗"))
    }
}
