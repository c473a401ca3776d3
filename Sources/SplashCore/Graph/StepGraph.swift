/// A validated step graph: unique ids, known dependencies and plugins, no cycles.
///
/// `steps` keeps the configured order; `order` is a topological order that respects it where it can,
/// so steps listed first start first.
public struct StepGraph: Sendable, Equatable {
    /// Why a set of steps is not a valid graph.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case duplicateID(String)
        case unknownDependency(step: String, dependency: String)
        case unknownPlugin(step: String, plugin: String)
        /// The ids along the cycle, first id repeated at the end: `["a", "b", "a"]`.
        case cycle([String])
        case emptyID

        public var description: String {
            switch self {
            case .duplicateID(let id): "duplicate step id \"\(id)\""
            case .unknownDependency(let step, let dependency):
                "step \"\(step)\" depends on unknown step \"\(dependency)\""
            case .unknownPlugin(let step, let plugin): "step \"\(step)\" uses unknown plugin \"\(plugin)\""
            case .cycle(let ids): "dependency cycle: \(ids.joined(separator: " -> "))"
            case .emptyID: "a step has an empty id"
            }
        }

        /// The step the problem is about, to locate it in a file.
        public var step: String? {
            switch self {
            case .duplicateID(let id): id
            case .unknownDependency(let step, _), .unknownPlugin(let step, _): step
            case .cycle(let ids): ids.first
            case .emptyID: nil
            }
        }
    }

    /// The steps in configured order.
    public let steps: [StepSpec]
    /// Indices into `steps` in dependency order.
    public let order: [Int]
    /// For each step index, the indices of its dependencies.
    public let dependencies: [[Int]]
    /// For each step index, the indices of the steps that depend on it.
    public let dependants: [[Int]]
    private let indexByID: [String: Int]

    /// Validates `steps`, throwing the first of `problems(in:isKnownPlugin:)`. `isKnownPlugin`
    /// says whether a plugin name can be run.
    public init(steps: [StepSpec], isKnownPlugin: (String) -> Bool = { _ in true }) throws(Problem) {
        let analysis = Analysis(steps: steps, isKnownPlugin: isKnownPlugin)
        if let first = analysis.problems.first { throw first.problem }
        self.steps = steps
        self.dependencies = analysis.dependencies
        self.dependants = analysis.dependants
        self.indexByID = analysis.indexByID
        self.order = Self.topologicalOrder(dependencies: analysis.dependencies)
    }

    /// Every problem of `steps`, each with the index of the step it is about (for a duplicate id,
    /// the later step; for a cycle, its first step): empty and duplicate ids in step order, then
    /// each step's unknown plugin and unknown dependencies, then one cycle among the known
    /// dependencies.
    public static func problems(
        in steps: [StepSpec], isKnownPlugin: (String) -> Bool = { _ in true }
    ) -> [(step: Int, problem: Problem)] {
        Analysis(steps: steps, isKnownPlugin: isKnownPlugin).problems
    }

    /// One pass over the steps: their ids, edges and problems.
    private struct Analysis {
        var problems: [(step: Int, problem: Problem)] = []
        var indexByID: [String: Int] = [:]
        var dependencies: [[Int]] = []
        var dependants: [[Int]]

        init(steps: [StepSpec], isKnownPlugin: (String) -> Bool) {
            dependants = Array(repeating: [], count: steps.count)
            // The step that last listed each index as a dependency: duplicates in `after` are
            // dropped in O(1) (a search of the list so far was quadratic in its length).
            var listedBy = Array(repeating: -1, count: steps.count)
            for (index, step) in steps.enumerated() {
                if step.id.isEmpty {
                    problems.append((index, .emptyID))
                } else if indexByID[step.id] != nil {
                    problems.append((index, .duplicateID(step.id)))
                } else {
                    indexByID[step.id] = index
                }
            }
            for (index, step) in steps.enumerated() {
                if !isKnownPlugin(step.plugin) {
                    problems.append((index, .unknownPlugin(step: step.id, plugin: step.plugin)))
                }
                var deps: [Int] = []
                for dependency in step.after {
                    guard let dep = indexByID[dependency] else {
                        problems.append((index, .unknownDependency(step: step.id, dependency: dependency)))
                        continue
                    }
                    if listedBy[dep] != index {
                        listedBy[dep] = index
                        deps.append(dep)
                        dependants[dep].append(index)
                    }
                }
                dependencies.append(deps)
            }
            if let cycle = StepGraph.findCycle(steps: steps, dependencies: dependencies) {
                problems.append((indexByID[cycle[0]] ?? 0, .cycle(cycle)))
            }
        }
    }

    /// The index of the step with `id`.
    public func index(of id: String) -> Int? { indexByID[id] }

    /// The step with `id`.
    public subscript(id: String) -> StepSpec? { indexByID[id].map { steps[$0] } }

    /// Depth-first search on a stack of its own (a chain of 100,000 steps overflowed the call
    /// stack of a recursive one); returns the first cycle found, as ids, with the first id repeated.
    private static func findCycle(steps: [StepSpec], dependencies: [[Int]]) -> [String]? {
        enum Mark { case unvisited, onPath, done }
        var marks = Array(repeating: Mark.unvisited, count: steps.count)
        // The path from the root of the search: each node, and how many of its dependencies
        // have been walked.
        var path: [(node: Int, walked: Int)] = []
        // Where each node on the path is in it.
        var position = Array(repeating: 0, count: steps.count)
        for root in steps.indices where marks[root] == .unvisited {
            marks[root] = .onPath
            path.append((root, 0))
            while let top = path.last {
                let (node, walked) = (top.node, top.walked)
                // Walk "is after" edges: the printed cycle `a -> b -> a` reads "a is after b is after a".
                guard walked < dependencies[node].count else {
                    marks[node] = .done
                    path.removeLast()
                    continue
                }
                path[path.count - 1].walked += 1
                let dep = dependencies[node][walked]
                switch marks[dep] {
                case .onPath:
                    let cycle = path[position[dep]...].map { steps[$0.node].id }
                    return cycle + [cycle[0]]
                case .unvisited:
                    marks[dep] = .onPath
                    position[dep] = path.count
                    path.append((dep, 0))
                case .done:
                    break
                }
            }
        }
        return nil
    }

    /// Kahn's algorithm, always taking the lowest ready index so configured order is kept:
    /// O((steps + edges) log steps) with the ready steps in a heap.
    static func topologicalOrder(dependencies: [[Int]]) -> [Int] {
        var ready = IndexHeap()
        return topologicalOrder(dependencies: dependencies, ready: &ready)
    }

    /// The order, with the ready steps kept in `ready` (tests read its work).
    static func topologicalOrder(dependencies: [[Int]], ready: inout IndexHeap) -> [Int] {
        var remaining = dependencies.map(\.count)
        var dependants = Array(repeating: [Int](), count: dependencies.count)
        for (node, deps) in dependencies.enumerated() { for dep in deps { dependants[dep].append(node) } }
        for node in remaining.indices where remaining[node] == 0 { ready.insert(node) }
        var order: [Int] = []
        order.reserveCapacity(dependencies.count)
        while let next = ready.popMin() {
            order.append(next)
            for dependant in dependants[next] {
                remaining[dependant] -= 1
                if remaining[dependant] == 0 { ready.insert(dependant) }
            }
        }
        return order
    }
}
