/// CSS's timing functions, as cubic Bézier curves from (0, 0) to (1, 1): the same curves the
/// splash page's animations use (design §10), so both renderers move alike.
public struct Easing: Sendable, Equatable {
    let x1: Double, y1: Double, x2: Double, y2: Double

    public static let linear = Easing(x1: 0, y1: 0, x2: 1, y2: 1)
    /// `ease-out`: `cubic-bezier(0, 0, 0.58, 1)`.
    public static let easeOut = Easing(x1: 0, y1: 0, x2: 0.58, y2: 1)
    /// `ease-in`: `cubic-bezier(0.42, 0, 1, 1)`.
    public static let easeIn = Easing(x1: 0.42, y1: 0, x2: 1, y2: 1)
    /// `ease-in-out`: `cubic-bezier(0.42, 0, 0.58, 1)`.
    public static let easeInOut = Easing(x1: 0.42, y1: 0, x2: 0.58, y2: 1)

    /// The eased progress at `progress` (clamped to 0...1).
    public func callAsFunction(_ progress: Double) -> Double {
        let x = min(max(progress, 0), 1)
        if x == 0 || x == 1 || self == .linear { return x }
        // Solve bx(t) = x for t (Newton's method, then bisection if it strays), return by(t).
        func bezier(_ t: Double, _ a: Double, _ b: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t
        }
        func slope(_ t: Double, _ a: Double, _ b: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * a + 6 * u * t * (b - a) + 3 * t * t * (1 - b)
        }
        var t = x
        for _ in 0..<8 {
            let error = bezier(t, x1, x2) - x
            if abs(error) < 1e-7 { return bezier(t, y1, y2) }
            let d = slope(t, x1, x2)
            if abs(d) < 1e-6 { break }
            t -= error / d
        }
        var low = 0.0, high = 1.0
        t = x
        for _ in 0..<40 {
            let value = bezier(t, x1, x2)
            if abs(value - x) < 1e-7 { break }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
        }
        return bezier(t, y1, y2)
    }
}
