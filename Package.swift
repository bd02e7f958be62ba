// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "UnifiedCache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CurlHTTP", targets: ["CurlHTTP"]),
        .library(name: "CacheCore", targets: ["CacheCore"]),
        .library(name: "RESTCache", targets: ["RESTCache"]),
        .library(name: "GraphQLLanguage", targets: ["GraphQLLanguage"]),
        .library(name: "GraphQLCache", targets: ["GraphQLCache"]),
        .library(name: "UnifiedCache", targets: ["UnifiedCache"]),
        .library(name: "RedisReplication", targets: ["RedisReplication"]),
        // FixtureSupport (the fixture servers) is a target, not a product: the tests, the demo and the bench use it;
        // Integrations/ compiles the files it needs into a test-support target of its own (IntegrationFixtures).
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .systemLibrary(
            name: "CHiredis",
            // No pkgConfig: hiredis's .pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with a warning on every
            // build; the shim includes <hiredis/hiredis.h> from the system include path and the module map links it.
            providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(name: "CurlHTTP", dependencies: ["CCurl"], swiftSettings: strictSettings),
        .target(name: "CacheCrypto", dependencies: ["COpenSSL"], swiftSettings: strictSettings),
        .target(name: "CacheCore", swiftSettings: strictSettings),
        .target(name: "GraphQLLanguage", swiftSettings: strictSettings),
        .target(name: "RESTCache", dependencies: ["CacheCore", "CurlHTTP"], swiftSettings: strictSettings),
        .target(
            name: "GraphQLCache",
            dependencies: ["GraphQLLanguage", "CacheCore", "CurlHTTP", "CacheCrypto"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "UnifiedCache",
            dependencies: ["RESTCache", "GraphQLCache", "CacheCore", "CurlHTTP", "CacheCrypto"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RedisReplication",
            // The seams it implements (ReplicationTransport, SecondLevelStore) live in CacheCore, below the facade.
            dependencies: ["CHiredis", "COpenSSL", "CacheCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FixtureSupport",
            dependencies: ["CurlHTTP"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ucache-demo",
            dependencies: ["UnifiedCache", "FixtureSupport"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ucache-bench",
            dependencies: [
                "CurlHTTP", "RESTCache", "GraphQLCache", "FixtureSupport", "UnifiedCache", "RedisReplication",
                "CHiredis", "COpenSSL",
            ],
            swiftSettings: strictSettings
        ),
        // Fuzzing (`make fuzz`, scripts/fuzz.sh): the targets are a library the regression tests replay too; the
        // driver is one executable whose first argument names the target. Built with testable imports (debug).
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(
            name: "FuzzTargets",
            dependencies: ["UnifiedCache", "RedisReplication", "CHiredis"],
            path: "Fuzz/FuzzTargets",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ucache-fuzz",
            dependencies: ["FuzzTargets", "CLibFuzzer"],
            path: "Fuzz/ucache-fuzz",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ucache-replica",
            dependencies: ["UnifiedCache", "RedisReplication"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CurlHTTPTests",
            dependencies: ["CurlHTTP", "FixtureSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "CacheCoreTests", dependencies: ["CacheCore"], swiftSettings: strictSettings),
        .testTarget(name: "CacheCryptoTests", dependencies: ["CacheCrypto"], swiftSettings: strictSettings),
        .testTarget(
            name: "RESTCacheTests",
            dependencies: ["RESTCache", "FixtureSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GraphQLCacheTests",
            dependencies: ["GraphQLCache", "GraphQLLanguage", "CacheCore", "CurlHTTP", "FixtureSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GraphQLLanguageTests",
            dependencies: ["GraphQLLanguage", "FixtureSupport"],
            exclude: ["ParserCorpus"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "UnifiedCacheTests",
            dependencies: ["UnifiedCache", "FixtureSupport", "RedisReplication", "FuzzTargets"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RedisReplicationTests",
            dependencies: [
                "RedisReplication", "UnifiedCache", "GraphQLCache", "RESTCache", "CacheCore", "FixtureSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MigrationExamplesTests",
            dependencies: ["UnifiedCache", "RESTCache", "GraphQLCache", "FixtureSupport"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
