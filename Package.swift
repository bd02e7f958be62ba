// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "UnifiedCache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CacheCore", targets: ["CacheCore"]),
        .library(name: "CurlHTTP", targets: ["CurlHTTP"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .target(name: "CacheCore", swiftSettings: strictSettings),
        .target(name: "CurlHTTP", dependencies: ["CCurl"], swiftSettings: strictSettings),
        .testTarget(name: "CacheCoreTests", dependencies: ["CacheCore"], swiftSettings: strictSettings),
        .testTarget(name: "CurlHTTPTests", dependencies: ["CurlHTTP"], swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
