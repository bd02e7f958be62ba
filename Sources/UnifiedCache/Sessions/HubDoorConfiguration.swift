import CacheCore
import GraphQLCache
import RESTCache

/// What a front door's configuration takes from the hub's, the rule written once for the REST and GraphQL doors
/// (the value door has no configuration of its own: it takes the hub's as is).
protocol HubDoorConfiguration {
    var instrumentation: (any CacheInstrumentation)? { get set }
    var resilience: CacheResilience { get set }
}

extension HubDoorConfiguration {
    /// The door's configuration under the hub's: its own instrumentation, else the hub's; its resilience options
    /// over the hub's (a domain's and a call's come over both when a call is made).
    func inheriting(from hub: CacheHub.Configuration) -> Self {
        var door = self
        door.instrumentation = instrumentation ?? hub.instrumentation
        door.resilience = resilience.merged(over: hub.resilience)
        return door
    }
}

extension APIService.Configuration: HubDoorConfiguration {}
extension GraphQLClient.Configuration: HubDoorConfiguration {}
