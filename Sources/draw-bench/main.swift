// `make bench-draw`: how long one frame of the reference theme takes to draw in memory with
// SplashDraw (the native renderer's drawing), at 1920x1080 and 3840x2160 (docs/benchmarks.md,
// "The native renderer's drawing"). Prints one line per figure: median, p90 and max over the
// frames, in milliseconds, and the process's peak RSS.
import Glibc
import SplashCore
import SplashDraw
import SplashSupport
import SplashTheme
import SplashScene

let directory = CommandLine.arguments.dropFirst().first ?? "renderer/themes/reference"
let frames = 240
let loaded: ThemeLoader.Loaded
do {
    loaded = try ThemeLoader.load(directory: directory)
} catch {
    StandardStreams.printError("draw-bench: \(error)")
    exit(1)
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}

func report(_ name: String, _ samples: [Double]) {
    let sorted = samples.sorted()
    let p90 = sorted[Int(Double(sorted.count - 1) * 0.9)]
    func ms(_ value: Double) -> String { "\((value * 100).rounded() / 100)" }
    print("\(name): median \(ms(sorted[sorted.count / 2])) ms, p90 \(ms(p90)) ms, max \(ms(sorted.last!)) ms (\(sorted.count) frames)")
}

let network = SplashView(
    phase: .error, slow: true,
    error: .init(title: "Unable to connect", detail: SplashView.networkDetail, buttons: [.retry, .continueOffline]))
for (width, height) in [(1920, 1080), (3840, 2160)] {
    let image = SplashImage(width: width, height: height)
    let painter: SplashPainter
    do {
        painter = try SplashPainter(loaded, directory: directory)
    } catch {
        StandardStreams.printError("draw-bench: \(error)")
        exit(1)
    }
    let cases: [(String, SplashView, (Int) -> SplashTimeline.Times)] = [
        ("entry (logo and text moving)", SplashView(), { .init(sinceShown: 100 + Double($0 % 600)) }),
        ("still (entry over)", SplashView(), { _ in .init(sinceShown: 2000) }),
        ("slow (dots pulsing)", SplashView(slow: true), { .init(sinceShown: 5000, sinceSlow: Double($0) * 16.7) }),
        ("error view", network, { _ in .init(sinceShown: 9000, sinceSlow: 5000) }),
    ]
    for (name, view, times) in cases {
        painter.draw(view, at: times(0), into: image)  // the layouts are made once per size
        var samples: [Double] = []
        for frame in 0..<frames {
            let start = now()
            painter.draw(view, at: times(frame), into: image)
            samples.append(now() - start)
        }
        report("\(width)x\(height) \(name)", samples)
    }
}
var usage = rusage()
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
print("peak RSS: \(usage.ru_maxrss / 1024) MB (one 3840x2160 image is \(3840 * 2160 * 4 / 1_000_000) MB)")
