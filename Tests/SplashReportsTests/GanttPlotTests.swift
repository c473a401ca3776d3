import Foundation
import SplashCore
import SplashProtocol
import SplashReports
import Testing
import TestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The SVG chart: well-formed XML that names every step, with the parts an operator looks for.
@Suite struct GanttPlotTests {
    /// Collects what an XML parser saw, or the error that stopped it.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var attributes: [[String: String]] = []
        var texts: [String] = []
        private var current = ""
        private var depth = 0

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            elements[name, default: 0] += 1
            self.attributes.append(attributes)
            if name == "text" { depth += 1; if depth == 1 { current = "" } }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" {
                depth -= 1
                if depth == 0 { texts.append(current) }
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if depth > 0 { current += string }
        }
    }

    func parse(_ svg: String, sourceLocation: SourceLocation = #_sourceLocation) -> Collector? {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        let ok = parser.parse()
        #expect(ok, "not well-formed XML: \(String(describing: parser.parserError))", sourceLocation: sourceLocation)
        return ok ? collector : nil
    }

    @Test func aLaunchWithRetriesSkipsAndAnErrorIsDrawn() throws {
        let graph = try StepGraph(steps: [
            hstep("auth-refresh", attempts: 2, backoff: 100, label: "Signing in"),
            hstep("extra", critical: false), hstep("after-extra", after: ["extra"], critical: false),
            hstep("profile", after: ["auth-refresh"], label: "Profile & <settings>"),
        ])
        var simulation = LaunchSimulation(graph: graph, launch: "6f1c2a3b-xyz") { id, attempt in
            switch (id, attempt) {
            case ("auth-refresh", 1): .fail(300, retryable: true, code: .network)
            case ("extra", _): .fail(100)
            case ("profile", 1): .fail(200, code: ErrorCode(rawValue: "bad"))
            default: .ok(250)
            }
        }
        simulation.run(until: { $0.phase == .error }) { _, _ in () }
        simulation.wait(untilMs: 1500)
        try simulation.command(.retry)
        simulation.finish()
        let record = simulation.record
        let svg = GanttPlot.svg(record)
        #expect(svg.hasPrefix("<?xml"))
        let parsed = try #require(parse(svg))
        #expect(parsed.elements["svg"] == 1)
        let stepNames = parsed.texts
        for step in graph.steps { #expect(stepNames.contains { $0.hasPrefix(step.id) }, "names \(step.id)") }
        #expect(stepNames.contains("profile\u{00A0}Profile & <settings>"))
        // One bar per attempt: auth 2, extra 2 (the retry re-ran it), profile 2; a hatched bar for
        // the skipped step.
        let classes = parsed.attributes.compactMap { $0["class"] }
        #expect(record.steps.map(\.attempts.count) == [2, 2, 0, 2])
        #expect(classes.filter { $0 == "attempt" }.count == 6)
        #expect(classes.filter { $0 == "skipped" }.count == 1)
        #expect(classes.filter { $0 == "dismissing" }.count == 1)
        // loading, error, loading, dismissing (and finished, when it has width on the axis).
        let bands = parsed.attributes.filter { $0["class"] == "phase" }.compactMap { $0["fill"] }
        #expect(bands.prefix(4) == ["#eaf1fb", "#fbe3e2", "#eaf1fb", "#fff3cf"])
        let fills = parsed.attributes.filter { $0["class"] == "attempt" }.compactMap { $0["fill"] }
        #expect(Set(fills) == ["#d64541", "#3a9d5d"])
        #expect(stepNames.contains { $0.hasPrefix("dismissing @") })
        #expect(stepNames.contains("min_display"))
        #expect(svg.contains("width=\"900\""))
    }

    @Test func hostileStringsAreEscaped() throws {
        let nasty = "a<b>&\"c'\u{07}"
        let graph = try StepGraph(steps: [hstep(nasty, label: "]]></text><script>x</script>")])
        var simulation = LaunchSimulation(graph: graph, launch: "<&>") { _, _ in .fail(10, code: ErrorCode(rawValue: "</rect>")) }
        simulation.finish()
        let parsed = try #require(parse(GanttPlot.svg(simulation.record)))
        #expect(parsed.elements["script"] == nil)
        #expect(parsed.texts.contains { $0.hasPrefix("a<b>&\"c'\u{FFFD}") })
    }

    @Test func anEmptyOrCutShortRecordStillParses() throws {
        let empty = LaunchRecord(launch: "", startedAtUnixMs: 0, graphFingerprint: "", minDisplayMs: 0, steps: [])
        #expect(parse(GanttPlot.svg(empty)) != nil)
        var running = LaunchRecord(launch: "r", startedAtUnixMs: 0, graphFingerprint: "", minDisplayMs: 1000, steps: [
            StepRecord(id: "slow", plugin: "p", status: .running, attempts: [.init(attempt: 1, startMs: 0)]),
        ])
        running.phases = [.init(phase: .loading, atMs: 0)]
        let parsed = try #require(parse(GanttPlot.svg(running)))
        #expect(parsed.attributes.filter { $0["class"] == "attempt" }.first?["fill"] == "#4a7bd0")
    }
}
