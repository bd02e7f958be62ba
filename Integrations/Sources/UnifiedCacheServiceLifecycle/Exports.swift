// `CacheRequestsInFlight` lives with the parts every adapter shares (Vapor's lifecycle handler drains with it too).
@_exported import UnifiedCacheServerSupport
