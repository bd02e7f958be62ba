import Foundation

extension CacheSettings {
    /// A settings file larger than this is refused: real ones are a few kilobytes, and reading stops here so a
    /// path pointing at a device or a log cannot exhaust memory.
    public static let maximumFileBytes = 1024 * 1024

    /// The process's settings: the file named by `UCACHE_SETTINGS` if set, then the environment's overrides.
    ///
    /// - Parameter environment: the variables to read; tests pass their own dictionary.
    /// - Throws: `.settingsFileUnreadable` when the file cannot be read, and the errors of ``init(json:source:)``
    ///   and ``overriding(with:)``.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UnifiedCacheError) -> CacheSettings {
        let path = environment[SettingsEnvironmentVariable.settingsFile.rawValue]?.trimmingSpaces ?? ""
        return try load(file: path.isEmpty ? nil : path, environment: environment)
    }

    /// The settings of the file at `path` (or the defaults when `nil`), then the environment's overrides.
    public static func load(file path: String?, environment: [String: String]) throws(UnifiedCacheError)
        -> CacheSettings
    {
        guard let path else {
            return try CacheSettings().overriding(with: environment)
        }
        return try CacheSettings(json: readFile(atPath: path), source: path).overriding(with: environment)
    }

    /// The bytes of a settings file, at most ``maximumFileBytes``.
    static func readFile(atPath path: String) throws(UnifiedCacheError) -> Data {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumFileBytes + 1) ?? Data()
        } catch {
            throw UnifiedCacheError(
                code: .settingsFileUnreadable,
                message: "cannot read the settings file \(path)",
                place: path,
                underlying: SettingsFileReadFailure(description: String(describing: error))
            )
        }
        guard data.count <= maximumFileBytes else {
            throw UnifiedCacheError(
                code: .settingsFileUnreadable,
                message: "the settings file \(path) is larger than \(maximumFileBytes) bytes",
                place: path
            )
        }
        return data
    }
}

/// Foundation's reason a settings file could not be read, kept as text so the error stays `Sendable` whatever
/// Foundation threw.
public struct SettingsFileReadFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
}
