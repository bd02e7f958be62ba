import Foundation
import Testing
import UnifiedCache

/// The `UnifiedCacheError` `body` throws, or `nil` when it succeeds; any other error is recorded as an issue.
func unifiedError<Value>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Value
) -> UnifiedCacheError? {
    do {
        _ = try body()
        return nil
    } catch let error as UnifiedCacheError {
        return error
    } catch {
        Issue.record("expected a UnifiedCacheError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Settings parsed from JSON text.
func parseSettings(_ json: String, source: String? = nil) throws(UnifiedCacheError) -> CacheSettings {
    try CacheSettings(json: Array(json.utf8), source: source)
}

/// A fresh temporary file holding `contents`; removed by `TemporaryFile.remove()`.
struct TemporaryFile {
    let path: String

    init(_ contents: String) throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("ucache-settings-\(UUID().uuidString).json").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    }

    func write(_ contents: String) throws {
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Files of the repository, found from this source file, for tests that check the built-in map against the
/// fixture server's API.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }
}

/// The settings document with `"domainMap": "banking"` as its last member: the bank's settings files opt into the
/// preset. Added last (the map is read before the domains whatever the order), so the line and column of everything
/// the test wrote stay as written.
func bankingDocument(_ json: String) -> String {
    guard !json.contains(#""domainMap""#), let close = json.lastIndex(of: "}") else { return json }
    let body = json[..<close].trimmingCharacters(in: .whitespacesAndNewlines)
    let separator = body.hasSuffix("{") ? "" : ", "
    return json[..<close] + separator + #""domainMap": "banking""# + json[close...]
}
