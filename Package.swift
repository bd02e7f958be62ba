// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "UnifiedCache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CurlHTTP", targets: ["CurlHTTP"]),
        .library(name: "GraphQLCache", targets: ["GraphQLCache"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .target(name: "CurlHTTP", dependencies: ["CCurl"], swiftSettings: strictSettings),
        .testTarget(name: "CurlHTTPTests", dependencies: ["CurlHTTP"], swiftSettings: strictSettings),
        .target(name: "GraphQLCache", swiftSettings: strictSettings),
        .testTarget(
            name: "GraphQLCacheTests",
            dependencies: ["GraphQLCache"],
            exclude: ["ParserCorpus"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
