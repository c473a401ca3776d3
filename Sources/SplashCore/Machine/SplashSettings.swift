/// The `[splash]` section: the timing and policy of the splash itself.
public struct SplashSettings: Sendable, Equatable {
    /// Floor before dismissing, so a fast launch does not flash.
    public var minDisplay: Duration
    /// After this long in `loading`, `slow` turns true (renderers show an indicator).
    public var slowAfter: Duration
    /// After this long in `loading`, phase `error` with code `timeout` (soft).
    public var timeout: Duration
    /// `dismissing` turns into `finished` after this long without a `dismissed` acknowledgement.
    public var exitAnimation: Duration
    /// Whether `continue-offline` is offered in phase `error`.
    public var allowOffline: Bool

    public init(
        minDisplay: Duration = .seconds(1),
        slowAfter: Duration = .seconds(1),
        timeout: Duration = .seconds(10),
        exitAnimation: Duration = .milliseconds(300),
        allowOffline: Bool = true
    ) {
        self.minDisplay = minDisplay
        self.slowAfter = slowAfter
        self.timeout = timeout
        self.exitAnimation = exitAnimation
        self.allowOffline = allowOffline
    }
}
