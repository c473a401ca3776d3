#if canImport(Glibc)
import Glibc
#endif
public import SplashSupport

/// What the device remembers across launches in its state directory, outside any one plugin.
///
/// `hasFinishedLaunch` says whether any launch on this device ever reached `finished` (the
/// daemon records it); `first_launch` is true only before that and without a session.
public struct DeviceState: Sendable {
    public let stateDirectory: String

    public init(stateDirectory: String) { self.stateDirectory = stateDirectory }

    /// The marker file written when a launch first reaches `finished`.
    public var finishedMarkerPath: String { "\(stateDirectory)/launched" }

    /// Whether a launch on this device ever reached `finished`.
    public var hasFinishedLaunch: Bool { access(finishedMarkerPath, F_OK) == 0 }

    /// Records that a launch reached `finished` (crash-safe; a no-op when already recorded).
    public func recordFinishedLaunch() throws(AtomicFile.WriteError) {
        guard !hasFinishedLaunch else { return }
        try AtomicFile.write(Array("1\n".utf8), to: finishedMarkerPath, mode: 0o644)
    }

    /// `path` when absolute, else `path` inside the state directory.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : "\(stateDirectory)/\(path)"
    }
}
