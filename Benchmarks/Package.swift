// swift-tools-version: 6.1
// In-process benchmarks of splashd (package-benchmark). A separate package, so the main package's
// build and CI never fetch or compile the benchmark dependencies. Run: `make bench` at the top.
import PackageDescription

let package = Package(
    name: "splashd-benchmarks",
    dependencies: [
        .package(name: "splashd", path: ".."),
        // MallocInterposer only: the default RuntimeInterposer trait is not wanted (and not mirrored).
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "SplashBenchmarks",
            // SplashCore is the only library product of the main package that holds the engine:
            // the engine benchmark drives `LaunchMachine` the way `LaunchController` does.
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SplashCore", package: "splashd"),
            ],
            path: "Benchmarks/SplashBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
