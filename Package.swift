// swift-tools-version:6.0
import PackageDescription

// NetworkModule has no package dependencies, for the library, its tests and its tools alike.
let package = Package(
    name: "NetworkModule",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "NetworkModuleCore", targets: ["NetworkModuleCore"]),
        .library(name: "NetworkModuleTesting", targets: ["NetworkModuleTesting"]),
    ],
    targets: [
        .target(name: "NetworkModuleCore"),
        .target(name: "NetworkModuleTesting", dependencies: ["NetworkModuleCore"]),
        // The tools are targets, not products, so that a package depending on NetworkModule sees only
        // the two libraries. SwiftPM gives every executable target of the root package a product of
        // the target's name, so `swift run network-module-demo` and
        // `swift build --product network-module-benchmarks` work here, and only here.
        .executableTarget(
            name: "network-module-demo",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting"],
            path: "Sources/NetworkModuleDemo"
        ),
        // The performance harness: build with -c release; scripts/bench.sh runs it against nginx.
        .executableTarget(
            name: "network-module-benchmarks",
            dependencies: ["NetworkModuleCore"],
            path: "Sources/NetworkModuleBenchmarks"
        ),
        // What the test targets share (child processes, blocking waits, transfer folders); not a
        // product, and no test target of its own.
        .target(name: "NetworkModuleTestSupport", dependencies: ["NetworkModuleCore"]),
        .testTarget(
            name: "NetworkModuleCoreTests",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting", "NetworkModuleTestSupport"]
        ),
        // Against real servers on loopback (httpbin and scripts/fault_server.py), started by
        // scripts/test.sh; skipped without them, except in CI where they must run.
        .testTarget(
            name: "NetworkModuleIntegrationTests",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting", "NetworkModuleTestSupport"]
        ),
        // The testing kit's own tests: every matcher, sequence, delay, error, recording and replay case.
        .testTarget(
            name: "NetworkModuleTestingTests",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting"]
        ),
        // The code samples of README.md and docs/, compiled and run; see DocumentationSamplesTests.
        .testTarget(
            name: "NetworkModuleSamplesTests",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
