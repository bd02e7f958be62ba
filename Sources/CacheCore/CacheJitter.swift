/// A random extra duration added to the lifetime of each stored entry, so entries a fleet (or one burst of traffic)
/// wrote together do not all expire together and send their refreshes to the upstream at the same instant.
///
/// The extra is drawn uniformly in `0...bound`, where the bound is ``maxDuration``, capped by ``maxFraction`` of the
/// entry's own lifetime when set (so a 10 s entry with a 10 % fraction moves by at most 1 s whatever the absolute
/// maximum). It only lengthens the lifetime this cache keeps the entry fresh for, and never by more than the bound:
/// an upstream's `Cache-Control: max-age=60` under a 5 s maximum is served fresh for at most 65 s. A lifetime of zero
/// (an answer that must be revalidated on every use, `no-cache`) and an entry that never expires are left as they
/// are.
///
/// Any front door can apply it where it computes a stored entry's lifetime; ``none`` (the default everywhere) adds
/// nothing and draws no random number.
public struct CacheJitter: Sendable {
    /// The largest extra duration; zero or less adds none.
    public var maxDuration: Duration
    /// When set, the extra is also at most this share of the entry's lifetime (0.1 for 10 %); nil for no such cap.
    /// A value that is not finite or not above zero adds none.
    public var maxFraction: Double?
    /// Where the randomness comes from: any 64 random bits per call. The system generator by default; tests inject
    /// a seeded one.
    public var random: @Sendable () -> UInt64

    /// - Parameters:
    ///   - maxDuration: the largest extra (FusionCache's `JitterMaxDuration`).
    ///   - maxFraction: an optional cap as a share of each entry's lifetime.
    ///   - random: 64 random bits per call.
    public init(
        maxDuration: Duration, maxFraction: Double? = nil,
        random: @escaping @Sendable () -> UInt64 = { UInt64.random(in: .min ... .max) }
    ) {
        self.maxDuration = maxDuration
        self.maxFraction = maxFraction
        self.random = random
    }

    /// No jitter.
    public static var none: CacheJitter { CacheJitter(maxDuration: .zero) }

    /// Whether no entry is ever lengthened.
    public var isNone: Bool { maxDuration <= .zero }

    /// The largest extra for an entry fresh for `lifetime`.
    public func bound(forLifetime lifetime: Duration) -> Duration {
        guard !isNone, lifetime > .zero else { return .zero }
        guard let maxFraction else { return maxDuration }
        guard maxFraction.isFinite, maxFraction > 0 else { return .zero }
        let share = OutsideValue.clampedDuration(seconds: lifetime.cacheSeconds * maxFraction)
        return min(maxDuration, share)
    }

    /// A random extra for an entry fresh for `lifetime`, uniform in `0...bound(forLifetime:)`.
    public func extra(forLifetime lifetime: Duration) -> Duration {
        scaled(bound: bound(forLifetime: lifetime)) { random() }
    }

    /// The same extra every time for the same `seed`, spread uniformly over `0...bound(forLifetime:)` across seeds
    /// (a SplitMix64 mix of it): for a door that judges freshness when it reads rather than storing an expiry, so
    /// an entry's extra is drawn from what identifies it (its write time) and stays put between reads.
    /// ``random`` is not asked.
    public func stableExtra(forLifetime lifetime: Duration, seed: UInt64) -> Duration {
        scaled(bound: bound(forLifetime: lifetime)) {
            var value = seed &+ 0x9E37_79B9_7F4A_7C15
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    private func scaled(bound: Duration, _ bits: () -> UInt64) -> Duration {
        let bound = bound.cacheNanoseconds
        guard bound > 0 else { return .zero }
        // The high half of bits × (bound + 1): uniform over 0...bound without the bias of a remainder.
        let scaled = (UInt64(bound) + 1).multipliedFullWidth(by: bits()).high
        return .nanoseconds(Int64(scaled))
    }

    /// `timeout` with the default resolved and a random extra added; `.never` and zero lifetimes are unchanged.
    public func applied(to timeout: Timeout, default resolvedDefault: Timeout) -> Timeout {
        guard !isNone, case .seconds(let seconds) = timeout.resolved(default: resolvedDefault) else { return timeout }
        let extra = extra(forLifetime: OutsideValue.clampedDuration(seconds: seconds))
        guard extra > .zero else { return timeout }
        return .seconds(seconds + extra.cacheSeconds)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var cacheSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
