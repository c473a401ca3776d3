import Benchmark
import SplashCore
import SplashProtocol

// In-process figures of splashd: the launch engine (`LaunchMachine`, driven the way
// `LaunchController` drives it) and the protocol's encode / decode. Whole-process figures
// (gate latency, cold start, fan-out, round trip, footprint) come from `scripts/bench.sh`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    // MARK: Engine

    // 1,000 steps, 20 layers × 50, each step depending on every step of the layer before: the
    // critical path is 20 steps that each take no time, so all of the wall clock is overhead.
    let wide = EngineGraphs.layered(layers: 20, width: 50)

    Benchmark("engine: 1000-step graph (20x50), machine only") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(EngineDriver.runLaunch(graph: wide, publish: .none))
        }
    }

    Benchmark("engine: 1000-step graph (20x50), machine + snapshot + encode per publish") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(EngineDriver.runLaunch(graph: wide, publish: .snapshotAndEncode))
        }
    }

    Benchmark("engine: 1000-step graph (20x50), machine + latest snapshot encoded once") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(EngineDriver.runLaunch(graph: wide, publish: .coalesced))
        }
    }

    // MARK: Config

    // The graph check of a 20,000-step config (the part of loading after the TOML): ids, edges,
    // the cycle search and the topological order. It was quadratic in the number of steps
    // (docs/benchmarks.md, "Config loading"); whole loads are timed by scripts/bench-config.sh.
    let independent = (0..<20_000).map { StepSpec(id: "s\($0)", plugin: "signal") }
    let chain = (0..<20_000).map { StepSpec(id: "s\($0)", plugin: "signal", after: $0 == 0 ? [] : ["s\($0 - 1)"]) }

    Benchmark("config: step graph of 20,000 independent steps") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? StepGraph(steps: independent))
        }
    }

    Benchmark("config: step graph of a 20,000-step chain") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? StepGraph(steps: chain))
        }
    }

    // MARK: Protocol

    let small = ProtocolSamples.state(steps: 6)
    let large = ProtocolSamples.state(steps: 50)
    let smallLine = ServerMessage.state(small).line()
    let largeLine = ServerMessage.state(large).line()

    Benchmark(
        "protocol: encode state (6 steps, \(smallLine.count) B)",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ServerMessage.state(small).line())
        }
    }

    Benchmark(
        "protocol: encode state (50 steps, \(largeLine.count) B)",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ServerMessage.state(large).line())
        }
    }

    Benchmark(
        "protocol: decode state (6 steps, \(smallLine.count) B)",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ServerMessage.decode(smallLine))
        }
    }

    Benchmark(
        "protocol: decode state (50 steps, \(largeLine.count) B)",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ServerMessage.decode(largeLine))
        }
    }

    let pingLine = Array(#"{"cmd":"ping","id":7}"#.utf8)
    let completeLine = Array(#"{"cmd":"complete","step":"first-frame"}"#.utf8)
    Benchmark(
        "protocol: parse requests (ping + complete)",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(Request.parse(pingLine))
            blackHole(Request.parse(completeLine))
        }
    }
}
