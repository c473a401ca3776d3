@testable import SplashCore
import Testing

/// Checking a graph takes work near-linear in its size and never recurses as deep as the graph.
@Suite struct StepGraphScaleTests {
    static func chain(_ count: Int) -> [StepSpec] {
        (0..<count).map { StepSpec(id: "s\($0)", plugin: "signal", after: $0 == 0 ? [] : ["s\($0 - 1)"]) }
    }

    /// A chain of 100,000 steps, each after the one before: the cycle search recursed once per
    /// step and overflowed the stack (the test process died with signal 11).
    @Test func aLongChainIsCheckedWithoutRecursion() throws {
        let count = 100_000
        let graph = try StepGraph(steps: Self.chain(count))
        #expect(graph.order == Array(0..<count))
        // Closed into a ring, the cycle is named whole, from the first step.
        var ring = Self.chain(count)
        ring[0].after = ["s\(count - 1)"]
        guard case .cycle(let ids)? = StepGraph.problems(in: ring).first?.problem else {
            Issue.record("no cycle found")
            return
        }
        #expect(ids.count == count + 1)
        #expect(ids.first == "s0")
        #expect(ids.last == "s0")
        #expect(ids[1] == "s\(count - 1)")
    }

    /// Independent steps are all ready at once; taking the lowest each time from a heap costs
    /// O(n log n) comparisons. A scan of the ready list per step cost n²/2: 50 million here.
    @Test(arguments: [1_000, 10_000, 100_000])
    func theOrderOfIndependentStepsTakesNLogNComparisons(count: Int) {
        var ready = IndexHeap()
        let order = StepGraph.topologicalOrder(dependencies: Array(repeating: [], count: count), ready: &ready)
        #expect(order == Array(0..<count))
        let log2 = Int.bitWidth - count.leadingZeroBitCount
        #expect(ready.comparisons <= 3 * count * log2, "\(ready.comparisons) comparisons for \(count) steps")
    }

    /// Steps that become ready out of order still come out lowest index first.
    @Test func theHeapKeepsTheConfiguredOrder() {
        // 3 after 0; 1 after 3; 2 after nothing; 4 after 1 and 2.
        let order = StepGraph.topologicalOrder(dependencies: [[], [3], [], [0], [1, 2]])
        #expect(order == [0, 2, 3, 1, 4])
        var heap = IndexHeap()
        for value in [5, 3, 9, 1, 7, 3, 0] { heap.insert(value) }
        var popped: [Int] = []
        while let value = heap.popMin() { popped.append(value) }
        #expect(popped == [0, 1, 3, 3, 5, 7, 9])
    }

    /// A step after 20,000 others, each listed twice: one edge each.
    @Test func aLongAfterListKeepsEachDependencyOnce() throws {
        let count = 20_000
        var steps = (0..<count).map { StepSpec(id: "s\($0)", plugin: "signal") }
        let all = steps.map(\.id)
        steps.append(StepSpec(id: "last", plugin: "signal", after: all + all))
        let graph = try StepGraph(steps: steps)
        #expect(graph.dependencies[count] == Array(0..<count))
        #expect(graph.dependants[0] == [count])
        #expect(graph.order.last == count)
    }
}
