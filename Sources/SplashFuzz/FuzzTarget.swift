import SplashScene
/// The inputs splashd reads from outside, each as a libFuzzer target.
///
/// Every target takes arbitrary bytes, runs them through the same code the daemon or a plugin runs
/// on that input, and checks what must hold whatever the bytes are: no trap, and where a decoder
/// has an encoder, that what it accepted survives a round trip. A broken property is a trap
/// (`FuzzFailure.check`), which libFuzzer reports as a crash with the input that caused it.
///
/// The executables in `Fuzz/` (one per target, each a `LLVMFuzzerTestOneInput`) call `run(_:)`;
/// `FuzzCorpusTests` replays the committed seeds and regressions through the same function in the
/// ordinary test suite.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A request line of the socket protocol (`Request.parse`).
    case request
    /// A TOML document, through the reader behind configs and manifests (`TOMLTaggedJSON`, the
    /// output of `toml-test-decoder`).
    case toml
    /// A configuration file (`ConfigLoader.parse`), with a plugin catalog.
    case config
    /// An external plugin's manifest (`PluginCatalog.parseManifest`).
    case manifest
    /// An external plugin's standard output (line splitting and the JSON line protocol).
    case pluginOutput = "plugin-output"
    /// The session file of `auth-refresh`.
    case session
    /// The launch counter's record.
    case counter
    /// The launch history (`history.jsonl`).
    case history
    /// The cached remote config of `config-fetch`, with its ETag file.
    case configCache = "config-cache"
    /// Quick-action names and deep links (`QuickActionRouter`).
    case deepLink = "deep-link"
    /// A connection to `splashd-web`: HTTP requests, perhaps an upgrade.
    case webHTTP = "web-http"
    /// A page's WebSocket frames to `splashd-web`, after its upgrade.
    case webFrames = "web-frames"
    /// `splashd-otel`'s cursor file.
    case otelCursor = "otel-cursor"
    /// splashd's `records` reply as `splashd-otel` reads it, through to the traces.
    case otelRecords = "otel-records"
    /// A renderer's theme: `theme.toml`, and a logo through `splashd-kms`'s SVG and PNG decoders.
    case theme
    /// The native renderer's first-frame cache file, and the hand-over of
    /// `splashd-kms-first-frame`.
    case firstFrame = "first-frame"
    /// psplash's FIFO: what its writers send (`PsplashReader`, `PsplashCommand`), into the update
    /// view (`ModeMachine`).
    case psplashFIFO = "psplash-fifo"
    /// A message of the kernel's uevent netlink group, as `splashd-kms` reads it (`KernelUevent`).
    case uevent

    /// Runs one input through the target.
    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .request: FuzzRequest.run(bytes)
        case .toml: FuzzConfig.runTOML(bytes)
        case .config: FuzzConfig.runConfig(bytes)
        case .manifest: FuzzConfig.runManifest(bytes)
        case .pluginOutput: FuzzPluginOutput.run(bytes)
        case .session: FuzzStateFiles.runSession(bytes)
        case .counter: FuzzStateFiles.runCounter(bytes)
        case .history: FuzzStateFiles.runHistory(bytes)
        case .configCache: FuzzStateFiles.runConfigCache(bytes)
        case .deepLink: FuzzDeepLink.run(bytes)
        case .webHTTP: FuzzWeb.runHTTP(bytes)
        case .webFrames: FuzzWeb.runFrames(bytes)
        case .otelCursor: FuzzTelemetry.runCursor(bytes)
        case .otelRecords: FuzzTelemetry.runRecords(bytes)
        case .theme: FuzzTheme.run(bytes)
        case .firstFrame: FuzzFirstFrame.run(bytes)
        case .psplashFIFO: FuzzPsplash.run(bytes)
        case .uevent: FuzzKernelUevent.run(bytes)
        }
    }

    /// libFuzzer's `LLVMFuzzerTestOneInput`: runs the input, returns 0 (keep it in the corpus).
    public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        run(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }

    /// Runs one input given as an array.
    public func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { run($0) }
    }
}

/// A property that must hold for every input.
enum FuzzFailure {
    /// Traps with `message` when `condition` is false, so libFuzzer keeps the input.
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz property broken: \(message())") }
    }
}
