import SplashProtocol
import SplashCore

/// When things move: design §10's timeline, which the native renderer keeps (§13). Pure: every
/// answer is a function of the times given, so a frame at any instant can be drawn and checked.
///
/// - The logo: opacity 0 → 1 and scale 0.8 → 1 over 300 ms ease-out from 100 ms.
/// - The name and tagline: opacity 0 → 1 and 10 px up over 200 ms ease-out from 500 ms.
/// - The indicator, only once slow: fades in over 200 ms ease-out; the dots pulse (opacity 0.3 →
///   1 → 0.3, ease-in-out, once a second, each 160 ms after the one before) or the ring turns
///   once a second.
/// - Reduced motion: the logo and the texts fade in together over 300 ms from 100 ms, with no
///   scaling or sliding; the indicator does not move.
public struct SplashTimeline: Sendable, Equatable {
    /// No scaling, sliding, pulsing or turning.
    public var reduceMotion: Bool

    public init(reduceMotion: Bool) {
        self.reduceMotion = reduceMotion
    }

    /// Milliseconds since the splash's first frame, and since the state first said `slow`.
    public struct Times: Sendable, Equatable {
        public var sinceShown: Double
        /// nil while the launch is not slow.
        public var sinceSlow: Double?

        public init(sinceShown: Double, sinceSlow: Double? = nil) {
            self.sinceShown = sinceShown
            self.sinceSlow = sinceSlow
        }
    }

    /// The logo's opacity and scale.
    public func logo(at t: Double) -> (opacity: Double, scale: Double) {
        let p = Easing.easeOut((t - 100) / 300)
        return (p, reduceMotion ? 1 : 0.8 + 0.2 * p)
    }

    /// The name's and the tagline's opacity, and how far below their place they are (px).
    public func text(at t: Double) -> (opacity: Double, offset: Double) {
        if reduceMotion { return (Easing.easeOut((t - 100) / 300), 0) }
        let p = Easing.easeOut((t - 500) / 200)
        return (p, 10 * (1 - p))
    }

    /// The indicator's opacity, `sinceSlow` after the state first said slow.
    public func indicator(sinceSlow: Double) -> Double {
        Easing.easeOut(sinceSlow / 200)
    }

    /// Dot `index`'s (0–2) own opacity in the pulse.
    public func dot(_ index: Int, sinceSlow: Double) -> Double {
        if reduceMotion { return 1 }
        let t = sinceSlow - Double(index) * 160
        // Before its delay the animation has not begun: the dot is as styled (opaque).
        guard t >= 0 else { return 1 }
        let phase = t.truncatingRemainder(dividingBy: 1000) / 1000
        let half = phase < 0.5 ? phase * 2 : (phase - 0.5) * 2
        let eased = Easing.easeInOut(half)
        return phase < 0.5 ? 0.3 + 0.7 * eased : 1 - 0.7 * eased
    }

    /// The spinner's turn in radians.
    public func spinner(sinceSlow: Double) -> Double {
        if reduceMotion { return 0 }
        return sinceSlow.truncatingRemainder(dividingBy: 1000) / 1000 * 2 * Double.pi
    }

    /// Whether anything on `view` is moving at `times`: when not, the renderer draws nothing more
    /// until the state or the outputs change (no wake-ups while nothing moves).
    /// How long the entry animation lasts (ms): the texts are in place at its end.
    public var entryLength: Double { reduceMotion ? 400 : 700 }

    public func isMoving(_ view: SplashView, at times: Times) -> Bool {
        if times.sinceShown < entryLength { return true }
        guard view.phase == .loading, view.slow, let slow = times.sinceSlow else { return false }
        return slow < 200 || !reduceMotion
    }
}
