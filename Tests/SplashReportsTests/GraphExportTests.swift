import Foundation
import SplashCore
import SplashReports
import TestSupport
import Testing

/// The DOT export; checked by Graphviz itself when `dot` is installed.
@Suite struct GraphExportTests {
    @Test func nodesAndEdgesFollowTheGraph() throws {
        let dot = GraphExport.dot(try bootstrapGraph())
        #expect(dot.hasPrefix("digraph splashd {\n  rankdir=LR;\n"))
        #expect(dot.hasSuffix("}\n"))
        #expect(dot.contains("\"auth-refresh\" [label=\"auth-refresh\\nauth-refresh\\nSigning in\", style=\"rounded,bold\", peripheries=2];"))
        #expect(dot.contains("\"launch-counter\" [label=\"launch-counter\\nlaunch-counter\", color=\"#777777\"];"))
        #expect(dot.contains("  \"auth-refresh\" -> \"profile-sync\";\n"))
        #expect(dot.contains("  \"config-fetch\" -> \"quick-action\";\n"))
        #expect(dot.contains("  \"profile-sync\" -> \"quick-action\";\n"))
        #expect(dot.components(separatedBy: "->").count - 1 == 3)
    }

    @Test func graphvizAcceptsItEvenWithQuotesInIDs() throws {
        let graph = try StepGraph(steps: [
            hstep("plain"), hstep("with \"quotes\" \\ and -> arrow", after: ["plain"], label: "multi\nline"),
            hstep("ünïcode", after: ["with \"quotes\" \\ and -> arrow"], critical: false),
        ])
        let dot = GraphExport.dot(graph)
        #expect(dot.contains("\"with \\\"quotes\\\" \\\\ and -> arrow\""))
        #expect(dot.contains("multi\\nline"))
        guard let executable = ["/usr/bin/dot", "/usr/local/bin/dot", "/bin/dot"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("GraphExportTests: skipping the Graphviz check: `dot` is not installed (apt-get install -y graphviz)")
            return
        }
        let directory = try TemporaryDirectory(prefix: "splash-dot")
        defer { directory.remove() }
        let path = try directory.write("graph.dot", dot)
        let result = try ProcessRunner.run(executable, ["-Tsvg", path])
        #expect(result.status == 0, "dot rejected the graph: \(result.stderr)")
        #expect(result.stderr.isEmpty, "dot warned: \(result.stderr)")
        #expect(result.stdout.contains("<svg"))
        // Graphviz puts each node's id in a <title>: all three nodes and both edges came through.
        #expect(result.stdout.components(separatedBy: "class=\"node\"").count - 1 == 3)
        #expect(result.stdout.components(separatedBy: "class=\"edge\"").count - 1 == 2)
        #expect(result.stdout.contains("<title>plain</title>"))
    }
}
