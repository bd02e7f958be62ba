import CacheCore
import Foundation
import Testing
import UnifiedCache

@Suite("Settings store")
struct SettingsStoreTests {
    /// Settings parsed from a document of the bank's, which opts into its domain map.
    private func bankSettings(_ text: String) throws(UnifiedCacheError) -> CacheSettings {
        try parseSettings(bankingDocument(text))
    }

    /// A document of the bank's, which opts into its domain map.
    private func json(_ text: String) -> SettingsSource {
        .json(Data(bankingDocument(text).utf8), source: "test")
    }

    @Test("a store starts with its settings and the environment's overrides")
    func initial() throws {
        let store = try SettingsStore(settings: .banking, environment: ["UCACHE_DOMAIN_OFFERS": "never"])

        #expect(store.current.policy(for: .offers) == .never)
        #expect(store.current.defaultTimeout == .seconds(300))
    }

    @Test("a store loads the file named by UCACHE_SETTINGS")
    func initialFromFile() throws {
        let file = try TemporaryFile(bankingDocument(#"{"domains": {"balances": {"policy": 10}}}"#))
        defer { file.remove() }

        let store = try SettingsStore(environment: ["UCACHE_SETTINGS": file.path])

        #expect(store.current.policy(for: .balances) == .custom(seconds: 10))
    }

    @Test("a reload puts the new settings in force and says which domains' policies changed")
    func reloadReportsPolicies() throws {
        let store = try SettingsStore(settings: bankSettings(#"{"domains": {"balances": {"policy": 30}}}"#))

        let change = try store.reload(
            from: json(#"{"domains": {"balances": {"policy": 30}, "payees": {"policy": "never"}}}"#)
        )

        #expect(store.current.policy(for: .payees) == .never)
        #expect(change.domainsWithChangedPolicy == [.payees])
        #expect(change.domainsWithChangedDefinition.isEmpty)
        #expect(change.affectedDomains == [.payees])
        #expect(change.domainsToClear.map(\.name) == [.payees])
        #expect(!change.memoryLimitsChanged)
        #expect(!change.affectsEntriesOutsideDomains)
        #expect(!change.isEmpty)
    }

    @Test("a reload back to the defaults reports the domains that had a policy")
    func reloadToDefaults() throws {
        let store = try SettingsStore(settings: bankSettings(#"{"domains": {"offers": {"policy": "always"}}}"#))

        let change = try store.reload(from: .settings(.banking))

        #expect(change.domainsWithChangedPolicy == [.offers])
        #expect(store.current == CacheSettings.banking)
    }

    @Test("a reload that changes nothing reports nothing")
    func reloadUnchanged() throws {
        let store = try SettingsStore(settings: .banking)

        let change = try store.reload(from: json("{}"))

        #expect(change.isEmpty)
        #expect(change.affectedDomains.isEmpty)
        #expect(change.domainsToClear.isEmpty)
    }

    @Test("a changed domain definition is reported, and clearing covers its old and new members")
    func reloadDefinition() throws {
        let store = try SettingsStore(settings: .banking)

        let change = try store.reload(
            from: json(#"{"domains": {"statements": {"members": "replace", "restKeyPrefixes": ["statementsV2."]}}}"#)
        )

        #expect(change.domainsWithChangedDefinition == [.statements])
        #expect(change.domainsWithChangedPolicy.isEmpty)
        let toClear = try #require(change.domainsToClear.first)
        #expect(toClear.restKeyPrefixes == ["statements.", "statementsV2."])
        #expect(toClear.typenames == ["Statement"])
    }

    @Test("domains dropped from the map are reported, and clearing uses their last definition")
    func reloadRemovesDomains() throws {
        let store = try SettingsStore(settings: .banking)

        let change = try store.reload(from: json(#"{"domainMap": "empty", "domains": {"x": {"typenames": ["X"]}}}"#))

        #expect(change.domainsWithChangedDefinition == (CacheDomainMap.banking.names + ["x"]).sorted())
        #expect(change.domainsToClear.first { $0.name == .balances } == CacheDomainMap.banking[.balances])
        #expect(change.domainsToClear.first { $0.name == "x" }?.typenames == ["X"])
        #expect(store.current.domainMap.names == ["x"])
    }

    @Test("a new default timeout affects the domains using it, and entries outside every domain")
    func reloadDefaultTimeout() throws {
        let store = try SettingsStore(
            settings: bankSettings(
                #"{"domainMap": "empty", "domains": {"a": {"typenames": ["A"], "policy": 5}, "#
                    + #""b": {"typenames": ["B"]}}}"#)
        )

        let change = try store.reload(
            from: json(
                #"{"timeouts": {"default": 60}, "domainMap": "empty", "domains": {"#
                    + #""a": {"typenames": ["A"], "policy": 5}, "b": {"typenames": ["B"]}}}"#)
        )

        #expect(change.defaultTimeoutChanged)
        #expect(change.affectedDomains == ["b"])
        #expect(change.affectsEntriesOutsideDomains)
    }

    @Test("switching timeouts off affects every domain that caches")
    func reloadTimeoutSwitch() throws {
        let store = try SettingsStore(settings: bankSettings(#"{"domains": {"notifications": {"policy": "never"}}}"#))

        let change = try store.reload(
            from: json(#"{"timeouts": {"enabled": false}, "domains": {"notifications": {"policy": "never"}}}"#)
        )

        #expect(change.timeoutSwitchChanged)
        #expect(change.affectedDomains.count == CacheDomainMap.banking.count - 1)
        #expect(!change.affectedDomains.contains(.notifications))
    }

    @Test("new memory limits are reported")
    func reloadMemory() throws {
        let store = try SettingsStore(settings: .banking)

        let change = try store.reload(from: json(#"{"memory": {"maxEntriesPerSession": 10}}"#))

        #expect(change.memoryLimitsChanged)
        #expect(change.affectedDomains.isEmpty)
        #expect(store.current.memory.maxEntriesPerSession == 10)
    }

    @Test(
        "a broken reload throws and the previous settings stay in force",
        arguments: [
            #"{"domains": {"balances": {"policy": 30},}}"#, #"{"domains": {"balances": {"policy": "sometimes"}}}"#,
            #"{"domains": {"balance": {"policy": "never"}}}"#, #"{"memory": {"processBudgetBytes": -1}}"#,
            #"{"domains": {"balances": {"schemaCoordinates": ["balance"]}}}"#, "",
        ]
    )
    func brokenReloadKeepsPrevious(text: String) throws {
        let store = try SettingsStore(settings: bankSettings(#"{"domains": {"balances": {"policy": 45}}}"#))
        let before = store.current

        #expect(throws: UnifiedCacheError.self) { try store.reload(from: json(text)) }

        #expect(store.current == before)
        #expect(store.current.policy(for: .balances) == .custom(seconds: 45))
    }

    @Test("a broken file on disk keeps the previous settings, and the fixed file then applies")
    func brokenFileThenFixed() throws {
        let file = try TemporaryFile(bankingDocument(#"{"domains": {"balances": {"policy": 30}}}"#))
        defer { file.remove() }
        let store = try SettingsStore(environment: ["UCACHE_SETTINGS": file.path])

        try file.write(bankingDocument(#"{"domains": {"balances": {"policy": 30"#))
        let error = try #require(unifiedError { try store.reload(from: .environment) })
        #expect(error.code == .invalidSettings)
        #expect(error.message.contains(file.path))
        #expect(store.current.policy(for: .balances) == .custom(seconds: 30))

        try file.write(bankingDocument(#"{"domains": {"balances": {"policy": 10}}}"#))
        let change = try store.reload(from: .file(file.path))
        #expect(change.domainsWithChangedPolicy == [.balances])
        #expect(store.current.policy(for: .balances) == .custom(seconds: 10))
    }

    @Test("the environment's overrides beat every reloaded file")
    func environmentBeatsReload() throws {
        let store = try SettingsStore(settings: .banking, environment: ["UCACHE_DOMAIN_BALANCES": "never"])

        try store.reload(from: json(#"{"domains": {"balances": {"policy": "always"}}}"#))

        #expect(store.current.policy(for: .balances) == .never)
    }

    @Test("readers see one complete settings value or the other while reloads run")
    func concurrentReadsAndReloads() async throws {
        let store = try SettingsStore(settings: .banking)
        let fast = try bankSettings(#"{"timeouts": {"default": 1}, "domains": {"balances": {"policy": 1}}}"#)
        let slow = try bankSettings(#"{"timeouts": {"default": 2}, "domains": {"balances": {"policy": 2}}}"#)

        let consistent = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for index in 0..<500 {
                    _ = try? store.reload(from: .settings(index.isMultiple(of: 2) ? fast : slow))
                }
                return true
            }
            for _ in 0..<4 {
                group.addTask {
                    (0..<500).allSatisfy { _ in
                        let current = store.current
                        guard case .seconds(let seconds) = current.defaultTimeout, seconds != 300 else {
                            return current == CacheSettings.banking
                        }
                        return current.policy(for: .balances) == .custom(seconds: seconds)
                    }
                }
            }
            return await group.allSatisfy { $0 }
        }

        #expect(consistent)
    }
}
