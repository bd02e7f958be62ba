// GraphQL callers build clients from CacheCore's vocabulary (`CacheScope`, `ClearReason`, `Timeout`, …) and
// CurlHTTP's client and cookie jar; re-exported so `import GraphQLCache` is enough, as `import APICoreKit` was
// (and as `import RESTCache` is).
@_exported import CacheCore
@_exported import CurlHTTP
