// swift-tools-version: 6.2
import PackageDescription

// The project's own targets: no warning is let through (dependencies keep their own settings).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatAllWarnings(as: .error),
]

// Linux only (systemd, DRM/KMS, the journal, Linux's own calls): no `platforms`, which name only
// Apple's systems' minimum versions.
let package = Package(
    name: "splashd",
    products: [
        .executable(name: "splashd", targets: ["splashd"]),
        .executable(name: "splashctl", targets: ["splashctl"]),
        .executable(name: "splashd-web", targets: ["splashd-web"]),
        .executable(name: "splashd-otel", targets: ["splashd-otel"]),
        .library(name: "SplashCore", targets: ["SplashCore", "SplashProtocol", "SplashJSON"]),
        .library(name: "SplashClient", targets: ["SplashClient"]),
        // The fuzz targets, for the libFuzzer executables of the package in Fuzz/.
        .library(name: "SplashFuzz", targets: ["SplashFuzz"]),
    ],
    dependencies: [
        // Socket server and socket activation (`withBoundSocket`).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Logging API; the journald backend is our own LogHandler.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Command lines of splashd and splashctl.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Signals and graceful shutdown of the daemon's services.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // External plugins: spawning without a shell, in their own process group.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // HTTP for the built-in auth-refresh and config-fetch plugins.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // `FileDescriptor.writeAll` (already linked through swift-subprocess).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Fleet telemetry, in splashd-otel only (docs/benchmarks.md, "Telemetry"): swift-otel's
        // OTLP/HTTP exporter (protobuf) without its gRPC one, and the tracing and metrics APIs the
        // spans and histograms are made with.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // JSON as the protocol and the records use it: a value, its writer, Codable to and from
        // it, UTC timestamps. (Parsing, bounded, is the protocol's: SplashProtocol's WireObject.)
        .target(name: "SplashJSON", swiftSettings: strict),
        // The socket protocol, pure: its messages and their codec, and the words a state carries
        // (phase, error codes, destination, mode). Knows no launch machine: the clients speak it
        // without one.
        .target(name: "SplashProtocol", dependencies: ["SplashJSON"], swiftSettings: strict),
        // The renderers' command lines as data: the parser, --help, the man page's dump and the
        // shell completions from one table, without swift-argument-parser and the
        // FoundationEssentials it links (about 3.3 MB of each renderer: docs/benchmarks.md).
        .target(name: "SplashCommandLine", dependencies: ["SplashJSON"], swiftSettings: strict),
        // Pure core: graph, phase machine, history, modes. No sockets, files or processes.
        .target(name: "SplashCore", dependencies: ["SplashJSON", "SplashProtocol"], swiftSettings: strict),
        // What every program needs and no domain owns: the one bounded file reader, crash-safe
        // file replacement (AtomicFile), the environment, unbuffered stdout/stderr.
        .target(
            name: "SplashSupport",
            dependencies: ["CLinuxShims", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict
        ),
        // TOML configuration and plugin manifests -> core types, with located errors. Its own TOML
        // reader: TOMLKit (toml++) autolinked full Foundation and ICU (see docs/benchmarks.md).
        .target(name: "SplashConfig", dependencies: ["SplashCore", "SplashProtocol", "SplashSupport"], swiftSettings: strict),
        // Renderer themes (theme.toml and its files), read with located errors: splashd-web's and
        // the native renderer's. The daemon does not link it.
        .target(name: "SplashTheme", dependencies: ["SplashCore", "SplashProtocol", "SplashConfig", "SplashSupport"], swiftSettings: strict),
        // Plugins: the step plugin protocol, external plugin processes and their process groups,
        // the device's state they read (the built-ins are SplashBuiltins).
        .target(
            name: "SplashPlugins",
            dependencies: [
                "SplashCore", "SplashSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // The Linux calls Swift's Glibc module does not declare (or declares unusably): memfd_create
        // and its seals, madvise(MADV_PAGEOUT), malloc_trim, renameat2(RENAME_NOREPLACE), the child
        // subreaper, a signalfd for SIGTERM/SIGINT, pidfd_open, the move into the real root that
        // the renderer started in the initramfs makes at switch_root, and the kernel's uevent
        // socket (epoll, which Glibc's module lacks, to watch it beside udev's).
        .target(name: "CLinuxShims"),
        // What a process of splashd's writes to systemd: its log (a swift-log handler for the
        // journal's native protocol, or stderr) and sd_notify, spoken directly: libsystemd cost
        // 1.3 ms of every start and 1.2 MB of resident memory for the seven libraries it loads
        // (docs/benchmarks.md). SplashJournalReader is the other way.
        .target(
            name: "SplashJournalWriter",
            dependencies: [
                "CLinuxShims", "SplashCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // libsystemd, loaded with dlopen on first use, so the daemon (which speaks the journal's
        // native protocol and sd_notify itself) does not pay its 1.3 ms and 1.2 MB at every start
        // (docs/benchmarks.md); only the headers are needed to build (libsystemd-dev). sd-bus for
        // the app's unit (design §14: watching its state, starting, restarting and killing it) and
        // sd-journal for `splashctl logs`, which is the same executable as the daemon.
        .target(name: "CLibsystemd", linkerSettings: [.linkedLibrary("dl")]),
        // Reading a launch's journal records (sd-journal) and formatting them: `splashctl logs`.
        .target(name: "SplashJournalReader", dependencies: ["CLibsystemd", "SplashCore"], swiftSettings: strict),
        // The operators' reports of the history, pure: blame, critical-chain, the SVG plot, the
        // graph as DOT, history's lines (the daemon answers them; splashctl prints them).
        .target(name: "SplashReports", dependencies: ["SplashCore", "SplashProtocol"], swiftSettings: strict),
        // What the native renderer shows and when, with no drawing and no device: the view of a
        // state, the timeline, the turn, the renderer's machine, the presses' outputs, the
        // first-frame cache's formats. Pure (no C library: no cairo, pango, libdrm, libinput), so
        // its tests build without them; SplashDraw paints it, SplashKMS puts it on the display.
        .target(name: "SplashScene", dependencies: ["SplashCore", "SplashProtocol", "SplashTheme"], swiftSettings: strict),
        // The native renderer's drawing (design §13): Debian's C libraries made for the job. cairo
        // draws (and reads PNG logos), pango lays out and draws the theme's texts in its font
        // (HarfBuzz, FreeType, fontconfig beneath), librsvg draws SVG logos (loaded with dlopen in the
        // logo's child process only: SplashDraw/Librsvg.swift). The same three Plymouth's label and
        // two-step plugins use; docs/benchmarks.md has what they cost.
        // (pango's pkg-config flags carry glib's `-pthread`, which SwiftPM drops with
        // a "prohibited flag" warning: nothing needs it, the Swift runtime links libpthread.)
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CPango", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev"])]),
        // The splash drawn from a theme and a state (SplashScene's view at its timeline's times):
        // laid out and painted with cairo into any memory (a test's image, a DRM buffer). Only the
        // native renderer links it.
        .target(
            name: "SplashDraw",
            dependencies: ["CCairo", "CPango", "SplashCore", "SplashProtocol", "SplashScene", "SplashTheme"],
            swiftSettings: strict,
            // A theme's own font file goes to fontconfig, and pango's fontconfig map is told
            // (pango_fc_font_map_config_changed): both libraries pangocairo already loads, so
            // linking them costs nothing at start or in the package.
            linkerSettings: [.linkedLibrary("pangoft2-1.0"), .linkedLibrary("fontconfig")]
        ),
        // The built-ins' one home: auth-refresh, config-fetch, launch-counter, quick-action and
        // signal, and what the daemon shares with them (BuiltinServices).
        .target(
            name: "SplashBuiltins",
            dependencies: [
                "SplashCore", "SplashProtocol", "SplashPlugins", "SplashSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The line framing of the socket protocol over swift-nio: the daemon's server and the
        // renderer bridge's client of it.
        .target(name: "SplashLines", dependencies: [.product(name: "NIOCore", package: "swift-nio")], swiftSettings: strict),
        // The daemon: launch controller, socket server, lifecycle.
        .target(
            name: "SplashDaemon",
            dependencies: [
                "CLinuxShims", "CLibsystemd", "SplashCore", "SplashProtocol", "SplashConfig", "SplashPlugins", "SplashBuiltins", "SplashJournalWriter", "SplashReports",
                "SplashLines", "SplashSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // The reference renderer's bridge: serves the splash page and relays states to it over a
        // WebSocket (NIOHTTP1, NIOWebSocket: already in the tree through async-http-client).
        .target(
            name: "SplashWeb",
            dependencies: [
                "SplashCore", "SplashProtocol", "SplashConfig", "SplashLines", "SplashSupport", "SplashTheme",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "splashd-web",
            dependencies: [
                "SplashWeb", "SplashCore", "SplashProtocol", "SplashSupport", "SplashJournalWriter", "SplashTheme", "SplashCommandLine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // A launch record as telemetry: the spans, events and measurements of design §12, as plain
        // values (no I/O, no OpenTelemetry types), and the exporter's persisted cursor.
        // Its export loop too, with the socket, the collector and the cursor's file passed in.
        .target(
            name: "SplashTelemetry",
            dependencies: ["SplashCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // The fleet exporter: a client of the socket that sends each finished launch over OTLP.
        .executableTarget(
            name: "splashd-otel",
            dependencies: [
                "SplashTelemetry", "SplashClient", "SplashCore", "SplashProtocol", "SplashSupport", "SplashJournalWriter",
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // A small blocking line client of the socket protocol (splashctl, tests, benchmarks).
        .target(
            name: "SplashClient",
            dependencies: ["SplashCore", "SplashProtocol", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "splashd",
            dependencies: [
                "SplashDaemon", "SplashConfig", "SplashSupport", "SplashJournalWriter", "SplashctlCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // splashctl's commands, as a library: the `splashd` executable is `splashctl` too when
        // called by that name (one binary for both: docs/benchmarks.md, "Package sizes").
        .target(
            name: "SplashctlCommands",
            dependencies: [
                "CLinuxShims", "SplashClient", "SplashCore", "SplashProtocol", "SplashJournalReader", "SplashSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `screenshot --web` asks splashd-web over HTTP (already in the splashd binary).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "splashctl", dependencies: ["SplashctlCommands"], swiftSettings: strict),
        // Every outside input as a fuzz target: bytes in, the daemon's own decoders, properties checked.
        .target(
            name: "SplashFuzz",
            dependencies: [
                "SplashCore", "SplashProtocol", "SplashConfig", "SplashPlugins", "SplashBuiltins", "SplashWeb", "SplashTheme", "SplashTelemetry",
                "SplashDraw", "SplashKMS", "SplashScene",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // libdrm: DRM/KMS mode setting for the native renderer (connectors, modes, dumb buffers,
        // page flips): 121 kB installed, on every Debian system with a display.
        .systemLibrary(name: "CDrm", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        // libinput: touch, pointers and keys for the error view's buttons (its path backend on
        // the /dev/input nodes udev has set up): 1.6 MB installed with libmtdev, libevdev and
        // libwacom (0.9 MB of it libwacom's tablet data).
        .systemLibrary(name: "CLibinput", pkgConfig: "libinput", providers: [.apt(["libinput-dev"])]),
        // libudev: outputs plugged in and out while the splash is up (the drm subsystem's events
        // after udev; 0.4 MB, on every Debian system).
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // The display through DRM/KMS: outputs, double buffers, page flips, touch and keys, hot-plug;
        // the first-frame cache's files (its machine and formats are SplashScene's).
        .target(name: "SplashKMS", dependencies: ["CDrm", "CLibinput", "CUdev", "CLinuxShims", "SplashDraw", "SplashScene", "SplashSupport"], swiftSettings: strict),
        // The native renderer (design §13).
        .executableTarget(
            name: "splashd-kms",
            dependencies: [
                "SplashKMS", "SplashDraw", "SplashScene", "SplashClient", "SplashCore", "SplashProtocol", "SplashSupport", "SplashJournalWriter", "SplashTheme", "CLinuxShims",
                "SplashCommandLine",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // `make bench-draw`: one frame of a theme drawn in memory at 1080p and 4K (not shipped).
        .executableTarget(name: "draw-bench", dependencies: ["SplashDraw", "SplashScene", "SplashCore", "SplashSupport", "SplashTheme"], swiftSettings: strict),
        // toml-test's decoder interface over the TOML reader (TOML on stdin, tagged JSON on
        // stdout), to hold it against the conformance suite: `make toml-test`.
        .executableTarget(name: "toml-test-decoder", dependencies: ["SplashConfig", "SplashSupport"], swiftSettings: strict),
        .target(
            name: "TestSupport",
            dependencies: [
                "SplashCore", "SplashProtocol", "SplashClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(name: "SplashJSONTests", dependencies: ["SplashJSON", "SplashProtocol"], swiftSettings: strict),
        .testTarget(name: "SplashCommandLineTests", dependencies: ["SplashCommandLine", "SplashJSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SplashProtocolTests", dependencies: ["SplashProtocol", "SplashJSON"], swiftSettings: strict),
        .testTarget(name: "SplashCoreTests", dependencies: ["SplashCore", "SplashProtocol", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SplashReportsTests", dependencies: ["SplashReports", "SplashCore", "SplashProtocol", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SplashSupportTests", dependencies: ["SplashSupport", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SplashConfigTests", dependencies: ["SplashConfig", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SplashThemeTests", dependencies: ["SplashTheme", "SplashConfig", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "SplashDrawTests", dependencies: ["SplashDraw", "SplashScene", "SplashTheme", "SplashCore", "SplashProtocol", "TestSupport"],
            exclude: ["References"], swiftSettings: strict
        ),
        // The native renderer's pure parts, with no C library linked (no libdrm, libinput, cairo
        // or pango to build them): its machine on a test clock, the first-frame cache's formats and
        // its index, the modes chosen, the presses' outputs, the screen's pixel formats.
        .testTarget(name: "SplashSceneTests", dependencies: ["SplashScene", "SplashCore", "SplashProtocol", "SplashTheme", "TestSupport"], swiftSettings: strict),
        // The native renderer's adapters that need no display: the lock, the device wait, the
        // drawing turned, reading a screen back.
        .testTarget(
            name: "SplashKMSTests", dependencies: ["SplashKMS", "SplashDraw", "SplashScene", "SplashCore", "SplashProtocol", "SplashTheme", "TestSupport", "CLinuxShims"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SplashPluginsTests",
            dependencies: ["SplashPlugins", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SplashDaemonTests",
            dependencies: ["SplashDaemon", "SplashLines", "SplashSupport", "TestSupport", .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SplashLinesTests",
            dependencies: ["SplashLines", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(name: "SplashJournalWriterTests", dependencies: ["SplashJournalWriter", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "SplashBuiltinsTests",
            dependencies: [
                "SplashBuiltins", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "SplashJournalReaderTests", dependencies: ["SplashJournalReader", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SplashFuzzTests", dependencies: ["SplashFuzz", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "SplashWebTests",
            dependencies: [
                "SplashWeb", "SplashTheme", "SplashConfig", "SplashCore", "SplashProtocol", "TestSupport",
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SplashTelemetryTests",
            dependencies: ["SplashTelemetry", "SplashCore", "SplashProtocol", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(name: "SplashClientTests", dependencies: ["SplashClient", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests",
            // The executables are dependencies so `swift test` builds them; the tests run the binaries.
            dependencies: ["SplashClient", "SplashCore", "SplashProtocol", "SplashKMS", "SplashScene", "TestSupport", "splashd", "splashctl", "splashd-web", "splashd-otel", "splashd-kms", "toml-test-decoder"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
