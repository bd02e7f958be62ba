// swift-tools-version:6.1
import PackageDescription

// A backend-for-frontend on Hummingbird in front of the bank fixture, through UnifiedCache's sessions, logging,
// counting and tracing through the server ecosystem's APIs (UnifiedCache's Integrations/ package) and running the hub
// in the app's ServiceGroup. Its own package, so the library's Package.swift keeps zero dependencies.
let package = Package(
    name: "HummingbirdBFF",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "UnifiedCache", path: "../.."),
        .package(name: "Integrations", path: "../../Integrations"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // OpenTelemetry's tracer (W3C `traceparent` propagation) with its OTLP/HTTP exporter, which the BFF leaves
        // off unless OTEL_TRACES_EXPORTER=otlp (see Observability.swift).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdBFF",
            dependencies: [
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "RedisReplication", package: "UnifiedCache"),
                .product(name: "UnifiedCacheLogging", package: "Integrations"),
                .product(name: "UnifiedCacheMetrics", package: "Integrations"),
                .product(name: "UnifiedCacheTracing", package: "Integrations"),
                .product(name: "UnifiedCacheServiceLifecycle", package: "Integrations"),
                .product(name: "UnifiedCacheHummingbird", package: "Integrations"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
