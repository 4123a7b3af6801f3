// swift-tools-version:6.0
import PackageDescription

// NetworkModule has no package dependencies, for the library, its tests and its tools alike.
let package = Package(
    name: "NetworkModule",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "NetworkModuleCore", targets: ["NetworkModuleCore"]),
        .library(name: "NetworkModuleTesting", targets: ["NetworkModuleTesting"]),
        .executable(name: "network-module-demo", targets: ["NetworkModuleDemo"]),
        .executable(name: "network-module-benchmarks", targets: ["NetworkModuleBenchmarks"]),
    ],
    targets: [
        .target(name: "NetworkModuleCore"),
        .target(name: "NetworkModuleTesting", dependencies: ["NetworkModuleCore"]),
        .executableTarget(
            name: "NetworkModuleDemo",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting"]
        ),
        // The performance harness: build with -c release; scripts/bench.sh runs it against nginx.
        .executableTarget(
            name: "NetworkModuleBenchmarks",
            dependencies: ["NetworkModuleCore"]
        ),
        .testTarget(
            name: "NetworkModuleCoreTests",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting"]
        ),
        // Against real servers on loopback (httpbin and scripts/fault_server.py), started by
        // scripts/test.sh; skipped without them, except in CI where they must run.
        .testTarget(
            name: "NetworkModuleIntegrationTests",
            dependencies: ["NetworkModuleCore", "NetworkModuleTesting"]
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
