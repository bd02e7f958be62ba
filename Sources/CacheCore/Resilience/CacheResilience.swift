/// What a front door does when its upstream is slow or failing: serve what it has (fail-safe), stop waiting for a
/// slow answer when a stale one is at hand (soft timeout), give up on a hopeless call (hard timeout), and refresh a
/// hot entry before it expires (eager refresh). The names follow FusionCache's options, which many cache users know.
///
/// Every option is off by default, so a door with default resilience behaves exactly as one without it and pays
/// nothing on a fresh hit. Front doors take it per call, per domain (the settings file) and as a hub default; a
/// per-call value wins over the domain's, which wins over the hub's (see ``merged(over:)``).
public struct CacheResilience: Sendable, Hashable {
    /// How long past its freshness an entry may still be served when the upstream fails or times out; nil turns
    /// fail-safe off. The entry is kept (maintenance does not purge it) until this window ends.
    public var failSafeMaxDuration: Duration?
    /// After a fail-safe answer, how long the stale entry counts as fresh again, so every caller does not ask the
    /// failing upstream in turn. Default 30 seconds (used only when fail-safe is on).
    public var failSafeThrottleDuration: Duration
    /// With a stale entry at hand, how long a caller waits for the upstream before it is answered with the stale
    /// entry; the upstream call goes on in the background and updates the cache when it returns. Nil: no soft
    /// timeout.
    public var softTimeout: Duration?
    /// How long a caller waits for the upstream at most; past it the call ends with the door's timeout error (or a
    /// stale entry when fail-safe allows one). Nil: the transport's own timeout only.
    public var hardTimeout: Duration?
    /// The share of an entry's freshness (0 < threshold < 1, e.g. 0.9) past which a hit is answered at once and
    /// one background refresh starts. Nil: no eager refresh.
    public var eagerRefreshThreshold: Double?

    /// - Parameters:
    ///   - failSafeMaxDuration: the fail-safe window past freshness (nil: off).
    ///   - failSafeThrottleDuration: how long a fail-safe answer is kept fresh (default 30 s).
    ///   - softTimeout: the wait before a stale entry answers (nil: off).
    ///   - hardTimeout: the longest wait for the upstream (nil: the transport's).
    ///   - eagerRefreshThreshold: the share of freshness past which hits refresh (nil: off).
    public init(
        failSafeMaxDuration: Duration? = nil,
        failSafeThrottleDuration: Duration = .seconds(30),
        softTimeout: Duration? = nil,
        hardTimeout: Duration? = nil,
        eagerRefreshThreshold: Double? = nil
    ) {
        self.failSafeMaxDuration = failSafeMaxDuration
        self.failSafeThrottleDuration = failSafeThrottleDuration
        self.softTimeout = softTimeout
        self.hardTimeout = hardTimeout
        self.eagerRefreshThreshold = eagerRefreshThreshold
    }

    /// Nothing on: the default.
    public static var none: CacheResilience { CacheResilience() }

    /// Whether any option is on (a door may skip all resilience work when not).
    public var isEnabled: Bool {
        failSafeMaxDuration != nil || softTimeout != nil || hardTimeout != nil || eagerRefreshThreshold != nil
    }

    /// These options where set, `fallback`'s where not: a per-call value over a domain's, a domain's over the hub's.
    /// The throttle is taken from whichever side turns fail-safe on.
    public func merged(over fallback: CacheResilience) -> CacheResilience {
        CacheResilience(
            failSafeMaxDuration: failSafeMaxDuration ?? fallback.failSafeMaxDuration,
            failSafeThrottleDuration: failSafeMaxDuration != nil
                ? failSafeThrottleDuration : fallback.failSafeThrottleDuration,
            softTimeout: softTimeout ?? fallback.softTimeout,
            hardTimeout: hardTimeout ?? fallback.hardTimeout,
            eagerRefreshThreshold: eagerRefreshThreshold ?? fallback.eagerRefreshThreshold
        )
    }
}
