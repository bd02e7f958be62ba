extension CacheResilience {
    /// These options if every one is in range; else a ``CacheCoreError`` with code
    /// ``CacheCoreError/Code/invalidResilience`` naming the first that is not. Doors validate what they are
    /// configured with (a configuration, a settings file) so a typo fails loudly instead of turning an option off.
    ///
    /// In range: durations not negative; a throttle above zero when fail-safe is on; an eager-refresh threshold
    /// strictly between 0 and 1 (0 would refresh on every hit, 1 never); a soft timeout below the hard timeout.
    public func validated() throws(CacheCoreError) -> CacheResilience {
        func fail(_ message: String) -> CacheCoreError {
            CacheCoreError(code: .invalidResilience, message: message)
        }
        if let window = failSafeMaxDuration, window < .zero {
            throw fail("failSafeMaxDuration must not be negative.")
        }
        if failSafeMaxDuration != nil, failSafeThrottleDuration <= .zero {
            throw fail("failSafeThrottleDuration must be above zero when fail-safe is on.")
        }
        if let softTimeout, softTimeout < .zero {
            throw fail("softTimeout must not be negative.")
        }
        if let hardTimeout, hardTimeout <= .zero {
            throw fail("hardTimeout must be above zero.")
        }
        if let softTimeout, let hardTimeout, softTimeout >= hardTimeout {
            throw fail("softTimeout must be below hardTimeout.")
        }
        if let threshold = eagerRefreshThreshold, !(threshold > 0 && threshold < 1) {
            throw fail("eagerRefreshThreshold must be strictly between 0 and 1 (e.g. 0.9).")
        }
        return self
    }
}
