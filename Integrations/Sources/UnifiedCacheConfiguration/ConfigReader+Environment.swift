import Configuration

extension ConfigReader {
    /// The values of `keys` as the library's environment readers take them: each under its environment variable,
    /// as text. A value of another type (a JSON number or boolean) is taken as its text; secrets are read as
    /// secrets, so the reader's access reporters redact them.
    func cacheEnvironment(_ keys: [CacheConfigurationKey]) -> [String: String] {
        var environment: [String: String] = [:]
        for key in keys {
            if let text = text(forKey: ConfigKey(key.rawValue), isSecret: key.isSecret) {
                environment[key.environmentVariable] = text
            }
        }
        return environment
    }

    /// A value as text, whatever type its provider holds it as; nil when absent.
    func text(forKey key: ConfigKey, isSecret: Bool) -> String? {
        if let text = string(forKey: key, isSecret: isSecret) { return text }
        if let value = int(forKey: key, isSecret: isSecret) { return String(value) }
        if let value = double(forKey: key, isSecret: isSecret) { return String(value) }
        if let value = bool(forKey: key, isSecret: isSecret) { return value ? "true" : "false" }
        return nil
    }
}
