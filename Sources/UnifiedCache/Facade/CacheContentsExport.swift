import CacheCore
import Foundation
import GraphQLCache
import RESTCache

/// The session's cache contents as JSON, for debugging a live BFF: keys, timing and sizes always; values and
/// identifiers only when the redaction allows (the seeds' `#if DEBUG` export, always available but safe by default).
struct CacheContentsExport {
    let manager: DefaultUnifiedCacheManager
    let redaction: ExportRedaction

    func jsonText() -> String {
        let document: [String: Any] = [
            "scope": redaction.scope(manager.scope),
            "rest": restEntries(),
            "graphql": graphQLRecords(),
            "statistics": statistics(),
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private func restEntries() -> [[String: Any]] {
        let now = manager.rest.store.clock.now()
        return manager.rest.store.entries(in: manager.scope).sorted { $0.key < $1.key }.map { key, entry in
            var item: [String: Any] = [
                "key": redaction.restKey(key),
                "bytes": entry.byteCost,
                "ageSeconds": Double(entry.age(at: now).components.seconds),
                "fresh": entry.isFresh(at: now),
                "uplifted": entry.metadata.isUplifted,
                "domains": entry.metadata.domains.sorted(),
                "accounts": entry.metadata.accounts.sorted().map(redaction.identifier),
            ]
            item["value"] = redaction.value(String(describing: entry.value))
            return item
        }
    }

    private func graphQLRecords() -> [[String: Any]] {
        manager.graphQLStore.records(in: manager.scope).sorted { $0.key < $1.key }.map { record in
            var fields: [String: Any] = [:]
            for (name, field) in record.fields {
                fields[name] = redaction.value(String(describing: field.value))
            }
            return ["key": redaction.recordKey(record.key), "fields": fields]
        }
    }

    private func statistics() -> [String: Any] {
        let statistics = manager.getCacheStatistics()
        return [
            "restEntries": statistics.rest.entryCount,
            "restBytes": statistics.rest.byteCount,
            "graphQLRecords": statistics.graphQLRecords,
            "graphQLBytes": statistics.graphQL.byteCount,
            "queryTimestamps": statistics.queryTimestamps,
            "hitRate": statistics.combined.hitRate,
        ]
    }
}
