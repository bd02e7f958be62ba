// swift-tools-version:6.0
import PackageDescription

// UnifiedCache in the server-side Swift ecosystem: Hummingbird, Vapor, swift-configuration, swift-log, swift-metrics,
// swift-distributed-tracing and ServiceLifecycle. Its own package, so the library's Package.swift keeps zero dependencies; one product per concern,
// so an app links only the API packages it takes (see Integrations/README.md).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "UnifiedCacheIntegrations",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "UnifiedCacheLogging", targets: ["UnifiedCacheLogging"]),
        .library(name: "UnifiedCacheMetrics", targets: ["UnifiedCacheMetrics"]),
        .library(name: "UnifiedCacheTracing", targets: ["UnifiedCacheTracing"]),
        .library(name: "UnifiedCacheServiceLifecycle", targets: ["UnifiedCacheServiceLifecycle"]),
        .library(name: "UnifiedCacheHummingbird", targets: ["UnifiedCacheHummingbird"]),
        .library(name: "UnifiedCacheVapor", targets: ["UnifiedCacheVapor"]),
        .library(name: "UnifiedCacheConfiguration", targets: ["UnifiedCacheConfiguration"]),
    ],
    dependencies: [
        .package(name: "UnifiedCache", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "UnifiedCacheLogging",
            dependencies: [
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "UnifiedCacheMetrics",
            dependencies: [
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "UnifiedCacheTracing",
            dependencies: [
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "UnifiedCacheServiceLifecycle",
            dependencies: [
                "UnifiedCacheServerSupport",
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // What the framework adapters share and no framework needs: RFC 9211 Cache-Status, the verified identity.
        .target(
            name: "UnifiedCacheServerSupport",
            dependencies: [.product(name: "UnifiedCache", package: "UnifiedCache")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "UnifiedCacheHummingbird",
            dependencies: [
                "UnifiedCacheServerSupport",
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "UnifiedCacheVapor",
            dependencies: [
                "UnifiedCacheServerSupport",
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "Vapor", package: "vapor"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "UnifiedCacheConfiguration",
            dependencies: [
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "RedisReplication", package: "UnifiedCache"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        // The fixture server and redis-server for the tests and the bench, as the root's tests start them: the
        // root's FixtureSupport files this package needs, compiled here through symbolic links (one copy of the
        // code; FixtureSupport is not a product of the library). Not a product.
        .target(
            name: "IntegrationFixtures",
            dependencies: [.product(name: "CurlHTTP", package: "UnifiedCache")],
            path: "Tests/IntegrationFixtures",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "unified-cache-integrations-bench",
            dependencies: [
                "UnifiedCacheLogging", "UnifiedCacheMetrics", "UnifiedCacheTracing",
                "IntegrationFixtures",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "UnifiedCacheIntegrationsTests",
            dependencies: [
                "UnifiedCacheLogging", "UnifiedCacheMetrics", "UnifiedCacheTracing", "UnifiedCacheServiceLifecycle",
                "IntegrationFixtures",
                .product(name: "RedisReplication", package: "UnifiedCache"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "UnifiedCacheHummingbirdTests",
            dependencies: [
                "UnifiedCacheHummingbird",
                "IntegrationFixtures",
                .product(name: "RedisReplication", package: "UnifiedCache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "UnifiedCacheVaporTests",
            dependencies: [
                "UnifiedCacheVapor",
                "IntegrationFixtures",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "UnifiedCacheConfigurationTests",
            dependencies: [
                "UnifiedCacheConfiguration",
                "IntegrationFixtures",
                .product(name: "RedisReplication", package: "UnifiedCache"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
