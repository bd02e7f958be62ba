// The facade is what a BFF imports: `import UnifiedCache` brings the REST and GraphQL halves and their shared
// vocabulary with it.
@_exported import CacheCore
@_exported import CurlHTTP
@_exported import GraphQLCache
@_exported import RESTCache
