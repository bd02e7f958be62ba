// swift-tools-version:6.0
import PackageDescription

// A backend-for-frontend on Hummingbird in front of the bank fixture, through UnifiedCache's sessions.
// Its own package, so the library's Package.swift keeps zero dependencies.
let package = Package(
    name: "HummingbirdBFF",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "UnifiedCache", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdBFF",
            dependencies: [
                .product(name: "UnifiedCache", package: "UnifiedCache"),
                .product(name: "RedisReplication", package: "UnifiedCache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
