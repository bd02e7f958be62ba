import Configuration
import UnifiedCache

extension SettingsStore {
    /// The settings from swift-configuration, read as `SettingsStore(environment:)` reads the environment: the JSON
    /// file of the `settings` key (else `defaults`), then the overrides of ``CacheConfigurationKey`` (`defaultTimeout`,
    /// `sessionIdleTimeout`, …) and one `domain.<name>` key per domain of the map in force (`never`, `always`,
    /// `default` or seconds; `domain.transactionHistory` is `UCACHE_DOMAIN_TRANSACTION_HISTORY` under a reader scoped
    /// to `ucache` over environment variables).
    ///
    /// The overrides are read once: a reload of the store applies them again, as it does the environment's.
    ///
    /// - Parameters:
    ///   - config: the reader, scoped to where the cache's keys are (`config.scoped(to: "ucache")`).
    ///   - defaults: the settings without a file (`CacheSettings.banking` for the fixture bank's domain map).
    /// - Throws: ``CacheConfigurationError`` naming the key: `.invalidValue` for a value that does not parse or is
    ///   out of range (or a file that is not valid settings), `.unreadableFile` for a file that cannot be read.
    public convenience init(config: ConfigReader, defaults: CacheSettings = CacheSettings())
        throws(CacheConfigurationError)
    {
        var environment = config.cacheEnvironment(CacheConfigurationKey.settings)
        let fileVariable = CacheConfigurationKey.settingsFile.environmentVariable
        let file = environment[fileVariable].flatMap { $0.isEmpty ? nil : $0 }
        var domainMap = defaults.domainMap
        if let file {
            do throws(UnifiedCacheError) {
                domainMap = try CacheSettings.load(file: file, environment: [:]).domainMap
            } catch {
                throw CacheConfigurationError(library: error, environment: environment)
            }
        }
        var domainKeys: [String: String] = [:]
        for name in domainMap.names {
            let key = CacheConfigurationKey.domainPolicyPrefix + "." + name.rawValue
            let components = [CacheConfigurationKey.domainPolicyPrefix, name.rawValue]
            guard let text = config.text(forKey: ConfigKey(components), isSecret: false) else { continue }
            let variable = SettingsEnvironmentVariable.domainPolicyPrefix + name.rawValue.uppercased()
            environment[variable] = text
            domainKeys[variable] = key
        }
        do throws(UnifiedCacheError) {
            if file != nil {
                try self.init(environment: environment)
            } else {
                try self.init(settings: defaults, environment: environment)
            }
        } catch {
            throw CacheConfigurationError(library: error, environment: environment, domainKeys: domainKeys)
        }
    }
}
