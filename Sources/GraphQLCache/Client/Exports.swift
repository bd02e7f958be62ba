// GraphQL callers build clients from CacheCore's vocabulary (`CacheScope`, `ClearReason`, `Timeout`, …),
// CurlHTTP's client and cookie jar, and GraphQLLanguage's documents and JSON; re-exported so `import GraphQLCache`
// is enough, as `import APICoreKit` was (and as `import RESTCache` is).
@_exported import CacheCore
@_exported import CurlHTTP
@_exported import GraphQLLanguage
