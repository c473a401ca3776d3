// swift-tools-version: 6.1
// The libFuzzer executable of SplashFuzz's targets, one for all: called by a target's name
// (`fuzz-toml`, a link to `fuzz`), it fuzzes that target. Built only with libFuzzer:
//   swift build -c release --sanitize fuzzer        (scripts/fuzz.sh, `make fuzz`)
// It defines `LLVMFuzzerInitialize` and `LLVMFuzzerTestOneInput` and no `main`: libFuzzer's driver
// is the main.
import PackageDescription

let package = Package(
    name: "splashd-fuzz",
    dependencies: [.package(name: "splashd", path: "..")],
    targets: [
        .executableTarget(
            name: "fuzz",
            dependencies: [.product(name: "SplashFuzz", package: "splashd")],
            path: "Sources/fuzz"
        )
    ],
    swiftLanguageModes: [.v6]
)
