public import SplashScene
/// Where each part of the splash is, in the picture's upright coordinates (pixels, the origin at
/// the top left): the page's CSS layout (design §10), so a theme looks the same in both renderers.
public struct SplashLayout: Sendable, Equatable {
    /// A rectangle.
    public struct Rect: Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double

        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        public var midX: Double { x + width / 2 }
        public var midY: Double { y + height / 2 }
        public var maxY: Double { y + height }

        /// Whether the point is inside (edges included).
        public func contains(x px: Double, y py: Double) -> Bool {
            px >= x && px <= x + width && py >= y && py <= y + height
        }
    }

    /// The upright size.
    public var width: Double
    public var height: Double
    /// The logo's box (120 px square; its circle fills it).
    public var logo: Rect
    public var name: Rect
    public var tagline: Rect?
    /// The indicator's box (loading, once slow).
    public var indicator: Rect?
    public var progress: Rect?
    public var step: Rect?
    /// The error view's parts (phase `error`).
    public var errorIcon: Rect?
    public var errorTitle: Rect?
    public var errorDetail: Rect?
    /// The update and shutdown views' parts (`SplashView.mode`); a failed update's shows the
    /// error icon too.
    public var modeTitle: Rect?
    public var modeProgress: Rect?
    public var modeMessage: Rect?
    public var modeWarning: Rect?
    /// A button of the error view and where it is.
    public struct Place: Sendable, Equatable {
        public var button: SplashView.Button
        public var rect: Rect
    }
    public var buttons: [Place] = []

    /// The button at a point (touch or pointer), if any.
    public func button(atX x: Double, y: Double) -> SplashView.Button? {
        buttons.first { $0.rect.contains(x: x, y: y) }?.button
    }
}
