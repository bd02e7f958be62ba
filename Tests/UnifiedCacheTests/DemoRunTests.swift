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

        let process = Process()
        process.executableURL = binary
        var environment = ProcessInfo.processInfo.environment
        environment["UCACHE_FIXTURE_URL"] = server.baseURL
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)

        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("all expectations met"))
        #expect(text.contains("alice logs out"))
        #expect(!text.contains("✗"))
    }
}
