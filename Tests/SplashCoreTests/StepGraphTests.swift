import SplashCore
import SplashProtocol
import Testing

@Suite struct StepGraphTests {
    @Test func cycleIsNamed() {
        #expect(throws: StepGraph.Problem.cycle(["a", "b", "c", "a"])) {
            try StepGraph(steps: [step("a", after: ["b"]), step("b", after: ["c"]), step("c", after: ["a"])])
        }
        #expect(StepGraph.Problem.cycle(["a", "b", "a"]).description == "dependency cycle: a -> b -> a")
    }

    @Test func selfDependencyIsACycle() {
        #expect(throws: StepGraph.Problem.cycle(["a", "a"])) { try StepGraph(steps: [step("a", after: ["a"])]) }
    }

    @Test func unknownDependencyDuplicateAndUnknownPlugin() {
        #expect(throws: StepGraph.Problem.unknownDependency(step: "a", dependency: "zz")) {
            try StepGraph(steps: [step("a", after: ["zz"])])
        }
        #expect(throws: StepGraph.Problem.duplicateID("a")) { try StepGraph(steps: [step("a"), step("a")]) }
        #expect(throws: StepGraph.Problem.unknownPlugin(step: "a", plugin: "test")) {
            try StepGraph(steps: [step("a")], isKnownPlugin: { _ in false })
        }
    }

    @Test func everyProblemIsListedWithItsStep() {
        let steps = [
            step("a", after: ["c"]), step("b", after: ["zz", "a", "yy"]), step("c", after: ["a"]), step("b"),
        ]
        let problems = StepGraph.problems(in: steps, isKnownPlugin: { _ in true })
        #expect(problems.map(\.step) == [3, 1, 1, 0])
        #expect(
            problems.map(\.problem) == [
                .duplicateID("b"),
                .unknownDependency(step: "b", dependency: "zz"),
                .unknownDependency(step: "b", dependency: "yy"),
                .cycle(["a", "c", "a"]),
            ]
        )
        // init throws the first of them.
        #expect(throws: StepGraph.Problem.duplicateID("b")) { try StepGraph(steps: steps) }
        #expect(StepGraph.problems(in: [step("a"), step("b", after: ["a"])]).isEmpty)
    }

    @Test func topologicalOrderKeepsConfiguredOrderWhereItCan() throws {
        let graph = try StepGraph(steps: [step("late", after: ["b"]), step("a"), step("b")])
        #expect(graph.order.map { graph.steps[$0].id } == ["a", "b", "late"])
    }
}

@Suite struct DurationFormatTests {
    @Test(arguments: [("250ms", 250), ("1.5s", 1500), ("2m", 120_000), ("1m30s", 90_000), ("0", 0), ("100us", 0), (" 1s ", 1000)])
    func parses(text: String, ms: Int) throws {
        #expect(try DurationFormat.parse(text).milliseconds == Int64(ms))
    }

    @Test(arguments: ["", "5", "5 seconds", "1.2.3s", "-1s", "s", "1x", ".s"])
    func rejects(text: String) {
        #expect(throws: DurationFormat.ParseError.self) { try DurationFormat.parse(text) }
    }

    @Test func formats() {
        #expect(DurationFormat.format(.milliseconds(250)) == "250ms")
        #expect(DurationFormat.format(.milliseconds(1500)) == "1.5s")
        #expect(DurationFormat.format(.seconds(120)) == "2m")
    }
}

@Suite struct DestinationTests {
    @Test func rule() {
        #expect(Destination.decide(from: ["authenticated": true]).screen == .home)
        #expect(Destination.decide(from: ["authenticated": false, "first_launch": true]).screen == .onboarding)
        #expect(Destination.decide(from: ["authenticated": false, "first_launch": false]).screen == .login)
        #expect(Destination.decide(from: [:]).screen == .home)
        let d = Destination.decide(from: ["authenticated": true, "route": "orders/42", "sheet": "feedback", "review_prompt": true])
        #expect(d == Destination(screen: .home, route: "orders/42", sheet: "feedback", reviewPrompt: true))
    }
}
