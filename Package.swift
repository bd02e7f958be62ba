// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "UnifiedCache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CurlHTTP", targets: ["CurlHTTP"])
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .target(name: "CurlHTTP", dependencies: ["CCurl"], swiftSettings: strictSettings),
        .target(
            name: "FixtureSupport",
            dependencies: ["CurlHTTP"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ucache-demo",
            dependencies: ["CurlHTTP", "FixtureSupport"],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "ucache-bench", dependencies: ["CurlHTTP"], swiftSettings: strictSettings),
        .testTarget(
            name: "CurlHTTPTests", dependencies: ["CurlHTTP", "FixtureSupport"], swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
