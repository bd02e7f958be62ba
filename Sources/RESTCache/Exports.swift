// REST callers use CacheCore's vocabulary (`Timeout`, `CacheScope`, `ClearReason`, …) and CurlHTTP's client
// directly; re-exported so `import RESTCache` is enough, as `import NABAPICoreKit` was.
@_exported import CacheCore
@_exported import CurlHTTP
