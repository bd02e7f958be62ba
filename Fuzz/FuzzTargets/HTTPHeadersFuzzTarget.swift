import CacheCore
import CurlHTTP
import Foundation

@testable import RESTCache

/// An upstream's response headers (`Name: value` lines) into the REST caching decisions: `Cache-Control`, `Expires`
/// against `Date`, validators, `Vary`; then the decision is stored and read back, as the service does with an answer.
enum HTTPHeadersFuzzTarget {
    static let clock = ManualCacheClock()
    static let store: CacheStore = {
        do { return try CacheStore(clock: clock) } catch {
            fatalError("The fuzz harness's store did not start: \(error)")
        }
    }()

    static func run(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        let fields = String(decoding: input, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap {
            line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        for field in fields { _ = HTTPDate.secondsSince1970(field.value) }
        let semantics = HTTPCachingSemantics(headers: CurlHTTPClient.Headers(fields))
        for shared in [false, true] {
            let lifetime = semantics.freshnessLifetime(shared: shared)
            violations.expect(lifetime.map { $0 >= 0 } ?? true, "a negative freshness lifetime: \(lifetime ?? 0)")
            guard semantics.allowsStoring(shared: shared) else { continue }
            for requested in [Timeout.seconds(600), .seconds(0.5), .never, .useDefault] {
                let timeout = semantics.cap(requested, default: .seconds(300), shared: shared)
                if case .seconds(let seconds) = timeout {
                    violations.expect(seconds.isFinite && seconds >= 0, "a capped timeout of \(seconds) s")
                }
                store(timeout, semantics: semantics, shared: shared, into: &violations)
            }
        }
        return violations.list
    }

    /// Stores an answer with the decided timeout and validators; memory must hold it, fresh unless the timeout is 0.
    private static func store(
        _ timeout: Timeout, semantics: HTTPCachingSemantics, shared: Bool, into violations: inout Violations
    ) {
        let scope: CacheScope = shared ? .shared : .session("fuzz")
        var metadata = CacheEntryMetadata(timeout: timeout)
        metadata.validators = semantics.validators
        let outcome = store.insert(
            Data("{}".utf8), byteCost: 2, key: "fuzz", scope: scope, metadata: metadata, ifGeneration: nil)
        guard outcome.isStored else { return }
        switch store.peek("fuzz", in: scope) {
        case .fresh: break
        case .stale: violations.expect(timeout == .seconds(0), "an answer stored for \(timeout) is stale at once")
        case .miss: violations.expect(false, "an answer stored for \(timeout) is not in memory")
        }
        store.remove(key: "fuzz", scope: scope)
    }

    static func seeds() -> [(name: String, bytes: [UInt8])] {
        let blocks: [(String, String)] = [
            ("max-age", "Cache-Control: max-age=60\nETag: \"v1\""),
            ("private-no-cache", "Cache-Control: private, no-cache\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT"),
            ("no-store", "Cache-Control: no-store"),
            ("s-maxage", "Cache-Control: public, s-maxage=30, max-age=\"120\""),
            ("expires", "Date: Sun, 06 Nov 1994 08:49:37 GMT\nExpires: Sun, 06 Nov 1994 08:59:37 GMT"),
            ("rfc850", "Date: Sunday, 06-Nov-94 08:49:37 GMT\nExpires: Sunday, 06-Nov-94 09:49:37 GMT"),
            ("asctime", "Expires: Sun Nov  6 08:49:37 1994"),
            ("invalid-expires", "Expires: 0\nCache-Control: must-revalidate"),
            ("vary", "Vary: Accept-Encoding, Accept-Language\nCache-Control: max-age=5"),
            ("vary-star", "Vary: *"),
        ]
        return blocks.map { ($0.0, Array($0.1.utf8)) }
    }
}
