// The framework-free parts (Cache-Status, the verified identity, the in-flight counter) are this adapter's API too.
@_exported import UnifiedCacheServerSupport
