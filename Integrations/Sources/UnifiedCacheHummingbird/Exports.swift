// The framework-free parts (Cache-Status, the verified identity) are the Hummingbird adapter's API too.
@_exported import UnifiedCacheServerSupport
