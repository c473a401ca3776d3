/// How a picture is turned on its buffer: the splash is laid out upright for the turned size and
/// drawn turned clockwise by this many degrees (a portrait panel mounted on its side).
public enum SplashRotation: Int, Sendable, CaseIterable {
    case none = 0, quarter = 90, half = 180, threeQuarters = 270

    /// The upright size of a buffer of `width` × `height`.
    public func upright(width: Double, height: Double) -> (width: Double, height: Double) {
        self == .quarter || self == .threeQuarters ? (height, width) : (width, height)
    }

    /// Where a point of the upright picture lands on a buffer of `width` × `height` turned so
    /// (what `SplashPainter.draw` does with cairo's transform).
    public func buffer(x: Double, y: Double, width: Double, height: Double) -> (x: Double, y: Double) {
        switch self {
        case .none: (x, y)
        case .quarter: (width - y, x)
        case .half: (width - x, height - y)
        case .threeQuarters: (y, height - x)
        }
    }

    /// Where a point of the buffer (a touch, in the output's own pixels) is in the upright
    /// picture: the inverse of `buffer(x:y:width:height:)`.
    public func upright(x: Double, y: Double, width: Double, height: Double) -> (x: Double, y: Double) {
        switch self {
        case .none: (x, y)
        case .quarter: (y, width - x)
        case .half: (width - x, height - y)
        case .threeQuarters: (height - y, x)
        }
    }
}
