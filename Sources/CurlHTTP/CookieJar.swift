import CCurl
import Foundation
import Synchronization

/// Told when a cookie jar made its libcurl store (about 2 KB), so the owner can charge it to a memory budget.
public protocol CookieStoreAccounting: AnyObject, Sendable {
    /// A jar made with this accounting just made its store (once per jar).
    func cookieStoreMade()
}

/// The upstream cookies of one user session, kept by libcurl's cookie engine.
///
/// A BFF calls upstreams on behalf of many users; each session gets its own jar so one user's
/// upstream cookies are never sent for another. Clearing it is part of logout.
///
/// A new jar is a few bytes: libcurl's cookie store (a share handle, its locks and cookie table, about 2 KB) is
/// made only when an upstream first sets a cookie. Until then a request with the jar runs libcurl's cookie engine
/// on its own handle, and the cookies the answer set (parsed and checked by libcurl against the request's host
/// and path) move into the jar's new store when the transfer ends.
public final class CookieJar: Sendable, CustomStringConvertible {
    /// One stored cookie. Its value is a secret: ``description`` never prints it.
    public struct Cookie: Sendable, Equatable, CustomStringConvertible {
        public var domain: String
        public var path: String
        public var isSecure: Bool
        /// Seconds since 1970; zero for a session cookie.
        public var expires: Int
        public var name: String
        public var value: String

        public var description: String { "Cookie(\(name) for \(domain)\(path))" }
    }

    /// libcurl's cookie store, made when the first cookie arrives and kept from then on (transfers attach it),
    /// and whether the jar was retired (no store is made any more).
    private let store = Mutex<StoreState>(StoreState())
    /// Told once, when the store is made (the facade charges it to the memory budget).
    private let observer: StoreObserver?

    private struct StoreState: Sendable {
        var share: ShareHandle?
        var isRetired = false
    }

    private enum StoreObserver: Sendable {
        case closure(@Sendable () -> Void)
        case accounting(any CookieStoreAccounting)
    }

    /// Creates an empty jar (no libcurl store yet); `onStoreMade` runs once, right after the first cookie made
    /// the store.
    public init(onStoreMade: (@Sendable () -> Void)? = nil) {
        self.observer = onStoreMade.map(StoreObserver.closure)
    }

    /// Creates an empty jar whose store, once the first cookie made it, is reported to `accounting`: one object
    /// (the facade's) for every session's jar, so a jar keeps no closure nor reference to its session.
    public init(accounting: any CookieStoreAccounting) {
        self.observer = .accounting(accounting)
    }

    /// Whether libcurl's cookie store was made: false until an upstream sets the first cookie.
    public var holdsStore: Bool {
        store.withLock { $0.share != nil }
    }

    /// The store, if one was made.
    var share: ShareHandle? {
        store.withLock { $0.share }
    }

    /// The store a transfer attaches: none once the jar is retired (the transfer then runs an engine of its own,
    /// sends no cookie, and what it is set is dropped).
    var transferShare: ShareHandle? {
        store.withLock { $0.isRetired ? nil : $0.share }
    }

    /// Ends the jar's use: transfers that start later send no cookie, cookies that arrive without the store
    /// attached (a transfer started before the first cookie, or after this) are dropped, and no store is made any
    /// more. The cookies held stay until ``clear()``. Returns whether a store was made before (on the first call
    /// only), so its owner releases exactly what it was told of, once.
    public func retire() -> Bool {
        store.withLock { state in
            let first = !state.isRetired
            state.isRetired = true
            return first && state.share != nil
        }
    }

    /// Moves cookies libcurl parsed on a transfer's own handle (Netscape cookie-file lines) into the jar,
    /// making its store on the first (unless the jar was retired: the cookies are then dropped).
    func adopt(netscapeLines lines: [String]) {
        guard !lines.isEmpty else { return }
        let adopted = store.withLock { state -> (ShareHandle, Bool)? in
            if state.isRetired { return nil }
            if let share = state.share { return (share, false) }
            CurlGlobal.initializeOnce()
            let share = ShareHandle()
            state.share = share
            return (share, true)
        }
        guard let (share, made) = adopted else { return }
        withEngineHandle(share) { easy in
            for line in lines {
                _ = ucc_easy_setopt_string(easy, CURLOPT_COOKIELIST, line)
            }
        }
        guard made else { return }
        switch observer {
        case .closure(let onStoreMade): onStoreMade()
        case .accounting(let accounting): accounting.cookieStoreMade()
        case nil: break
        }
    }

    /// Forgets every cookie in the jar.
    public func clear() {
        guard let share else { return }
        withEngineHandle(share) { easy in
            _ = ucc_easy_setopt_string(easy, CURLOPT_COOKIELIST, "ALL")
        }
    }

    /// The cookies the jar holds now.
    public func cookies() -> [Cookie] {
        guard let share else { return [] }
        return withEngineHandle(share) { easy in
            var list: UnsafeMutablePointer<curl_slist>?
            guard ucc_easy_getinfo_slist(easy, CURLINFO_COOKIELIST, &list) == CURLE_OK else { return [] }
            defer { curl_slist_free_all(list) }
            var cookies: [Cookie] = []
            var node = list
            while let current = node {
                if let data = current.pointee.data, let cookie = Self.parseNetscapeLine(String(cString: data)) {
                    cookies.append(cookie)
                }
                node = current.pointee.next
            }
            return cookies
        }
    }

    /// Counts only: cookie values are secrets.
    public var description: String { "CookieJar(\(cookies().count) cookies)" }

    /// A temporary easy handle attached to the jar's share, to reach the cookie engine outside a transfer.
    private func withEngineHandle<T>(_ share: ShareHandle, _ body: (UnsafeMutableRawPointer) -> T) -> T {
        guard let easy = curl_easy_init() else { preconditionFailure("libcurl could not allocate an easy handle") }
        defer { curl_easy_cleanup(easy) }
        _ = ucc_easy_setopt_share(easy, share.handle)
        _ = ucc_easy_setopt_string(easy, CURLOPT_COOKIEFILE, "")
        return body(easy)
    }

    /// The cookies a transfer's own cookie engine holds, as Netscape cookie-file lines (empty when none).
    static func netscapeLines(of easy: UnsafeMutableRawPointer) -> [String] {
        var list: UnsafeMutablePointer<curl_slist>?
        guard ucc_easy_getinfo_slist(easy, CURLINFO_COOKIELIST, &list) == CURLE_OK else { return [] }
        defer { curl_slist_free_all(list) }
        var lines: [String] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { lines.append(String(cString: data)) }
            node = current.pointee.next
        }
        return lines
    }

    /// `domain \t includeSubdomains \t path \t secure \t expires \t name \t value`
    static func parseNetscapeLine(_ line: String) -> Cookie? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count >= 7 else { return nil }
        var domain = String(fields[0])
        if domain.hasPrefix("#HttpOnly_") { domain.removeFirst("#HttpOnly_".count) }
        return Cookie(
            domain: domain,
            path: String(fields[2]),
            isSecure: fields[3] == "TRUE",
            expires: Int(fields[4]) ?? 0,
            name: String(fields[5]),
            value: String(fields[6])
        )
    }
}

/// A libcurl share handle for cookies, with locking so transfers on the loop thread and `clear()`
/// from any other thread never touch the cookie store at once.
///
/// `@unchecked Sendable` is sound: libcurl serialises every access to shared data through the lock
/// callbacks installed here (one `NSLock` per `curl_lock_data` kind), and the handle itself is
/// immutable after `init` until `deinit`.
final class ShareHandle: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    private let locks: LockSet

    init() {
        guard let handle = curl_share_init() else { preconditionFailure("libcurl could not allocate a share handle") }
        self.handle = handle
        self.locks = LockSet()
        _ = ucc_share_setopt_lock_data(handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE)
        _ = ucc_share_setopt_userdata(handle, Unmanaged.passUnretained(locks).toOpaque())
        _ = ucc_share_setopt_lock_function(
            handle,
            { _, data, _, userData in
                guard let userData else { return }
                Unmanaged<LockSet>.fromOpaque(userData).takeUnretainedValue().lock(Int(data.rawValue))
            })
        _ = ucc_share_setopt_unlock_function(
            handle,
            { _, data, userData in
                guard let userData else { return }
                Unmanaged<LockSet>.fromOpaque(userData).takeUnretainedValue().unlock(Int(data.rawValue))
            })
    }

    deinit {
        // Every transfer that used the share held the jar and detached the share when it ended.
        let code = curl_share_cleanup(handle)
        assert(code == CURLSHE_OK, "a cookie jar was released while a handle still used it")
    }
}

/// One lock per kind of shared data, as libcurl may hold two kinds at once.
final class LockSet: Sendable {
    private let locks: [NSLock] = (0..<8).map { _ in NSLock() }

    func lock(_ kind: Int) { locks[min(max(kind, 0), locks.count - 1)].lock() }
    func unlock(_ kind: Int) { locks[min(max(kind, 0), locks.count - 1)].unlock() }
}
