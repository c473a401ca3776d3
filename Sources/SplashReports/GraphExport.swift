public import SplashCore

/// `graph`: the configured step graph as Graphviz DOT (`splashctl graph | dot -Tsvg`).
public enum GraphExport {
    /// A `digraph` with a node per step (critical ones bold with a double border; the label holds
    /// the id, the plugin and the step's label) and an edge from each dependency to its dependant.
    public static func dot(_ graph: StepGraph) -> String {
        var lines = [
            "digraph splashd {",
            "  rankdir=LR;",
            "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];",
            "  edge [color=\"#555555\"];",
        ]
        for step in graph.steps {
            var label = "\(ReportFormat.dot(step.id))\\n\(ReportFormat.dot(step.plugin))"
            if let text = step.label, !text.isEmpty { label += "\\n\(ReportFormat.dot(text))" }
            let look = step.critical ? ", style=\"rounded,bold\", peripheries=2" : ", color=\"#777777\""
            lines.append("  \"\(ReportFormat.dot(step.id))\" [label=\"\(label)\"\(look)];")
        }
        for (index, dependencies) in graph.dependencies.enumerated() {
            for dependency in dependencies {
                lines.append("  \"\(ReportFormat.dot(graph.steps[dependency].id))\" -> \"\(ReportFormat.dot(graph.steps[index].id))\";")
            }
        }
        lines.append("}")
        return lines.map { $0 + "\n" }.joined()
    }
}
