import CacheCore
import Foundation
import Synchronization

@testable import UnifiedCache

/// A real hub whose replication transport delivers the fuzz input, sealed with the test secret (``FuzzPayload``), to
/// the hub's coordinator: opening, the replay rules, the binary form of ``ReplicationMessage``
/// (`ReplicationMessageCodec`) and the application of the clear all run.
///
/// The hub holds one live session (so messages naming its hash are applied to it); each run waits until the
/// coordinator has counted the message (rejected, ignored, applied or about an unknown session).
final class ReplicationFuzzHarness: Sendable {
    static let shared = ReplicationFuzzHarness()

    let transport = FuzzReplicationTransport()
    let secret: ReplicationSecret
    /// Another replica's sealer: its own sender id, its counter moving on with every input.
    let sealer: ReplicationSealer
    let hub: CacheHub
    let session: CacheSession

    private init() {
        do {
            secret = try ReplicationSecret(FuzzPayload.secret)
            sealer = ReplicationSealer(secret: secret)
            hub = try CacheHub(
                configuration: .init(
                    restBaseURL: "http://127.0.0.1:1",
                    graphQLEndpoint: "http://127.0.0.1:1/graphql",
                    maintenance: .init(interval: nil),
                    replication: ReplicationConfiguration(transport: transport, secret: secret)
                ).withBankingPresets(),
                settings: try SettingsStore(settings: .banking),
                clock: ManualCacheClock()
            )
        } catch {
            fatalError("The fuzz harness's hub did not start: \(error)")
        }
        session = hub.session(
            id: "fuzz-session", principal: VerifiedPrincipal("fuzz-user"), credentials: .bearer("fuzz-token"))
    }

    /// How many messages the coordinator has dealt with, whatever it did with them.
    private var counted: Int {
        guard let statistics = hub.replicationStatistics else { return 0 }
        return statistics.rejected + statistics.ignoredOwn + statistics.applied + statistics.unknownSession
    }

    func run(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        let decoded = ReplicationMessageCodec.decode(input)
        if let decoded {
            let encoded = ReplicationMessageCodec.encode(decoded)
            violations.expect(encoded == input, "a message decodes but re-encodes to other bytes: \(decoded)")
        }
        let before = counted
        let undecodableBefore = hub.replicationStatistics?.rejected(.undecodable) ?? 0
        transport.deliver(FuzzPayload.replicationPayload(input, sealer: sealer))
        waitFor { [self] in
            while counted == before { try? await Task.sleep(for: .microseconds(20)) }
        }
        let undecodable = (hub.replicationStatistics?.rejected(.undecodable) ?? 0) - undecodableBefore
        violations.expect(
            (undecodable == 1) == (decoded == nil), "the coordinator's verdict differs from the decoder's")
        return violations.list
    }

    func seeds() -> [(name: String, bytes: [UInt8])] {
        let own = secret.sessionHash(of: sessionIdentity)
        let messages: [(String, ReplicationMessage)] = [
            ("logout", .init(session: own, clear: .everything(reason: "logout", endsSession: true))),
            ("rest", .init(session: own, clear: .rest)),
            ("graphql", .init(session: own, clear: .graphQL)),
            ("timestamps", .init(session: own, clear: .timestamps)),
            ("uplifted", .init(session: own, clear: .uplifted)),
            ("query", .init(session: own, clear: .query("AccountSummary"))),
            ("account", .init(session: own, clear: .account("1234"))),
            ("domain", .init(session: own, clear: .domain(name: "accountSummary", reason: "custom(x)"))),
            (
                "rest-mutation",
                .init(
                    session: own,
                    clear: .restMutation(
                        method: "POST", path: "/api/payees",
                        entities: [EntityChange(record: "Payee:1", fields: ["name"]), .init(record: "Account:2")]))
            ),
            ("graphql-mutation", .init(session: own, clear: .graphQLMutation(records: ["Account:1"]))),
            (
                "settings",
                .init(
                    session: nil,
                    clear: .domainsInEverySession(names: ["cards"], reason: "settingsChanged"))
            ),
            ("drop", .init(session: nil, clear: .dropLocalCaches)),
            ("unknown-session", .init(session: "00ff", clear: .rest)),
        ]
        return messages.map { ($0.0, ReplicationMessageCodec.encode($0.1)) }
    }

    /// The identity the live session's scope carries (what its wire hash is made from).
    private var sessionIdentity: String {
        guard case .session(let identity) = session.scope else { return "" }
        return identity
    }
}

/// The fuzz harness's replication bus: it delivers what the harness hands it to the coordinator, as a transport's
/// thread would, and publishes nothing. Not a stand-in for Redis in a behaviour test: it feeds bytes to the hub.
final class FuzzReplicationTransport: ReplicationTransport {
    private let receiver = Mutex<(any ReplicationReceiver)?>(nil)

    func start(receiver: any ReplicationReceiver) {
        self.receiver.withLock { $0 = receiver }
        receiver.transportDidChange(.subscribed)
    }

    func deliver(_ payload: [UInt8]) {
        receiver.withLock { $0 }?.transportDidReceive(payload)
    }

    func publish(_ payload: [UInt8]) {}

    func shutdown() async {}
}
