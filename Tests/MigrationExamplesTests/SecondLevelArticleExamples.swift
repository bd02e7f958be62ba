import Foundation
import UnifiedCache

// The code the DocC article "A shared second level" quotes (QuotedDocumentsTests checks it is verbatim here).

/// The second level of a hub, when the environment names its secret (`UCACHE_L2_SECRET`, else
/// `UCACHE_REPLICATION_SECRET`); `store` is the back end every replica shares.
func secondLevel(store: any SecondLevelStore, environment: [String: String]) throws -> SecondLevelConfiguration? {
    guard let secret = try SecondLevelSecret(environment: environment) else { return nil }
    return SecondLevelConfiguration(store: store, secret: secret, readDeadline: .milliseconds(5))
}
