import Configuration
import Synchronization

/// Keeps what a reader reported of every access, rendered as its access logger renders it.
final class RecordingAccessReporter: AccessReporter {
    private let lines = Mutex<[String]>([])

    func report(_ event: AccessEvent) {
        lines.withLock { $0.append(String(describing: event)) }
    }

    var rendered: [String] { lines.withLock { $0 } }
}

/// Test values: a fleet secret and a Redis password that must never show in a log or an error.
enum Secrets {
    static let fleet = "base64:ZmxlZXQtc2VjcmV0LWJ5dGVzLWZvci10aGUtdGVzdHMhISEh"
    static let secondLevel = "base64:c2Vjb25kLWxldmVsLXNlY3JldC1ieXRlcy1mb3ItdGVzdHMhIQ=="
    static let redisPassword = "hunter2-redis-password"
}

/// An in-memory reader scoped to `ucache`, as an app scopes the library's keys.
func memoryReader(_ values: [String: String], reporter: RecordingAccessReporter? = nil) -> ConfigReader {
    var table: [AbsoluteConfigKey: ConfigValue] = [:]
    for (key, value) in values {
        table[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: false)
    }
    return ConfigReader(provider: InMemoryProvider(values: table), accessReporter: reporter).scoped(to: "ucache")
}

/// An environment-variables reader scoped to `ucache`: `redis.url` is `UCACHE_REDIS_URL`.
func environmentReader(_ variables: [String: String], reporter: RecordingAccessReporter? = nil) -> ConfigReader {
    ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: variables), accessReporter: reporter)
        .scoped(to: "ucache")
}
