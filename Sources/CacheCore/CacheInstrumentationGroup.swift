/// Several instrumentations as one (tracing, metrics and a drain counter, say), called in order.
public struct CacheInstrumentationGroup: CacheInstrumentation {
    public let members: [any CacheInstrumentation]

    public init(_ members: [any CacheInstrumentation]) {
        self.members = members
    }

    public func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        let tokens = members.map { $0.start(operation, attributes: attributes) }
        return CacheOperationToken(operation: operation, startedAt: tokens.first?.startedAt ?? .now, state: tokens)
    }

    public func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        guard let tokens = token.state as? [CacheOperationToken] else { return }
        for (member, memberToken) in zip(members, tokens) {
            member.end(memberToken, attributes: attributes)
        }
    }

    public func withCurrent<Result>(_ token: CacheOperationToken, _ body: () async -> Result) async -> Result {
        guard let tokens = token.state as? [CacheOperationToken] else { return await body() }
        return await Self.nest(members[...], tokens[...], body)
    }

    /// On the hit path: members are reached by index, so none is copied out of the array.
    public func cacheDidServe(_ hit: CacheHit) {
        var index = members.startIndex
        while index < members.endIndex {
            members[index].cacheDidServe(hit)
            index += 1
        }
    }

    /// Each member's `withCurrent` inside the previous one's.
    private static func nest<Result>(
        _ members: ArraySlice<any CacheInstrumentation>, _ tokens: ArraySlice<CacheOperationToken>,
        _ body: () async -> Result
    ) async -> Result {
        guard let member = members.first, let token = tokens.first else { return await body() }
        return await member.withCurrent(token) {
            await nest(members.dropFirst(), tokens.dropFirst(), body)
        }
    }
}

/// Several event observers as one (a logger and a metrics bridge, say), called in order.
public struct CacheEventObserverGroup: CacheEventObserver {
    public let members: [any CacheEventObserver]

    public init(_ members: [any CacheEventObserver]) {
        self.members = members
    }

    public func cacheDidEmit(_ event: CacheEvent) {
        for member in members {
            member.cacheDidEmit(event)
        }
    }
}
