// swift-tools-version: 6.1
// libFuzzer executables, one per target of SplashFuzz. Built only with libFuzzer:
//   swift build -c release --sanitize fuzzer        (scripts/fuzz.sh, `make fuzz`)
// Each executable defines `LLVMFuzzerTestOneInput` and no `main`: libFuzzer's driver is the main.
import PackageDescription

let targets = [
    "request", "toml", "config", "manifest", "plugin-output", "session", "counter", "history", "config-cache", "deep-link",
    "web-http", "web-frames", "otel-cursor", "otel-records", "theme", "first-frame", "psplash-fifo",
]

let package = Package(
    name: "splashd-fuzz",
    dependencies: [.package(name: "splashd", path: "..")],
    targets: targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: [.product(name: "SplashFuzz", package: "splashd")],
            path: "Sources/fuzz-\(name)"
        )
    },
    swiftLanguageModes: [.v6]
)
