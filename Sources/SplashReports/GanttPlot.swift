public import SplashCore
import SplashProtocol

/// `plot`: an SVG Gantt chart of one launch — the picture an operator attaches to a bug report.
///
/// A row per step (configured order) with a bar per attempt coloured by its outcome (succeeded
/// green, failed red, cancelled grey, still running blue; a skipped step is a hatched bar from the
/// moment it was skipped), the phases as background bands, a dashed line at `min_display`, the
/// dismissing instant marked and labelled, and a time axis with ticks. Standalone SVG 1.1; every
/// string from the record is XML-escaped.
public enum GanttPlot {
    /// Colours by outcome and by phase.
    enum Palette {
        static let succeeded = "#3a9d5d"
        static let failed = "#d64541"
        static let cancelled = "#9e9e9e"
        static let running = "#4a7bd0"
        static let skipped = "url(#hatch)"
        static func band(_ phase: Phase) -> String {
            switch phase {
            case .loading: "#eaf1fb"
            case .error: "#fbe3e2"
            case .dismissing: "#fff3cf"
            case .finished: "#f2f2f2"
            }
        }
        static func outcome(_ outcome: StepRecord.Outcome?) -> String {
            switch outcome {
            case .succeeded: succeeded
            case .failed: failed
            case .cancelled: cancelled
            case nil: running
            }
        }
    }

    static let width = 900.0
    static let plotLeft = 250.0
    static let plotRight = 860.0
    static let rowsTop = 84.0
    static let rowHeight = 24.0
    static let barHeight = 14.0

    /// The chart of `record` as a standalone SVG document.
    public static func svg(_ record: LaunchRecord) -> String {
        let axis = TimeAxis(endMs: max(record.endMs, record.minDisplayMs, record.dismissingAtMs ?? 0, 1))
        let rowsBottom = rowsTop + rowHeight * Double(max(record.steps.count, 1))
        let height = rowsBottom + 40
        func x(_ ms: Int64) -> Double { plotLeft + (plotRight - plotLeft) * Double(ms) / Double(axis.maxMs) }

        var svg = SVGText()
        svg.line(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(n(width))\" height=\"\(n(height))\" "
                + "viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">"
        )
        svg.line("<title>\(ReportFormat.xml("splashd launch \(record.launch)"))</title>")
        svg.line("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            + "<rect width=\"6\" height=\"6\" fill=\"#e0e0e0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8a8a8a\" stroke-width=\"2\"/></pattern></defs>")
        svg.line("<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>")

        // Title and legend.
        var title = "Launch \(ReportFormat.shortID(record.launch)) · \(ReportFormat.iso8601(unixMs: record.startedAtUnixMs))"
        if let dismissing = record.dismissingAtMs { title += " · dismissing @\(ReportFormat.seconds(ms: dismissing))" }
        if let destination = record.destination { title += " → \(destination.screen.rawValue)" }
        svg.text(x: 10, y: 20, title, attributes: "font-size=\"14\" font-weight=\"bold\"")
        legend(&svg)

        // Phase bands behind everything.
        for (index, mark) in record.phases.enumerated() {
            let next = index + 1 < record.phases.count ? record.phases[index + 1].atMs : axis.maxMs
            guard next > mark.atMs else { continue }
            let left = x(mark.atMs)
            svg.line("<rect class=\"phase\" x=\"\(n(left))\" y=\"\(n(rowsTop - 6))\" width=\"\(n(x(next) - left))\" "
                + "height=\"\(n(rowsBottom - rowsTop + 6))\" fill=\"\(Palette.band(mark.phase))\"><title>\(ReportFormat.xml(phaseTitle(mark, until: next)))</title></rect>")
        }

        // Axis: grid lines and tick labels.
        for tick in axis.ticks {
            let tx = x(tick)
            svg.line("<line x1=\"\(n(tx))\" y1=\"\(n(rowsTop - 6))\" x2=\"\(n(tx))\" y2=\"\(n(rowsBottom))\" stroke=\"#d0d0d0\" stroke-width=\"1\"/>")
            svg.text(x: tx, y: rowsBottom + 16, axis.label(tick), attributes: "text-anchor=\"middle\" fill=\"#555\"")
        }
        svg.line("<line x1=\"\(n(plotLeft))\" y1=\"\(n(rowsBottom))\" x2=\"\(n(plotRight))\" y2=\"\(n(rowsBottom))\" stroke=\"#555\" stroke-width=\"1\"/>")

        // Rows.
        let end = record.endMs
        for (row, step) in record.steps.enumerated() {
            let top = rowsTop + rowHeight * Double(row)
            let barTop = top + (rowHeight - barHeight) / 2
            let weight = step.critical ? " font-weight=\"bold\"" : ""
            var name = "<tspan\(weight)>\(ReportFormat.xml(step.id))</tspan>"
            if let label = step.label, !label.isEmpty {
                let room = max(0, 34 - step.id.count)
                let shown = label.count > room ? String(label.prefix(max(0, room - 1))) + "…" : label
                // A no-break space: renderers collapse a plain one between the two spans.
                if !shown.isEmpty { name += "<tspan fill=\"#666\" dx=\"4\">\u{00A0}\(ReportFormat.xml(shown))</tspan>" }
            }
            svg.line("<text class=\"step\" x=\"10\" y=\"\(n(top + rowHeight / 2 + 4))\">\(name)</text>")
            for attempt in step.attempts {
                let stop = attempt.endMs ?? end
                let left = x(attempt.startMs)
                let barWidth = max(2, x(stop) - left)
                var tip = "\(step.id) attempt \(attempt.attempt): \(attempt.outcome?.rawValue ?? "running")"
                tip += " @\(ReportFormat.seconds(ms: attempt.startMs)) +\(ReportFormat.duration(ms: stop - attempt.startMs))"
                if let code = attempt.code { tip += " (\(code))" }
                if let reason = attempt.reason { tip += ": \(reason)" }
                svg.line("<rect class=\"attempt\" x=\"\(n(left))\" y=\"\(n(barTop))\" width=\"\(n(barWidth))\" height=\"\(n(barHeight))\" "
                    + "fill=\"\(Palette.outcome(attempt.outcome))\" rx=\"2\"><title>\(ReportFormat.xml(tip))</title></rect>")
            }
            var note = ""
            var noteX = x(step.endMs ?? (step.startMs == nil ? 0 : end))
            if step.status == .skipped, let skippedAt = step.skippedAtMs {
                let left = x(skippedAt)
                let right = max(left + 6, x(record.dismissingAtMs ?? end))
                let tip = "\(step.id) skipped @\(ReportFormat.seconds(ms: skippedAt))" + (step.skipReason.map { ": \($0)" } ?? "")
                svg.line("<rect class=\"skipped\" x=\"\(n(left))\" y=\"\(n(barTop))\" width=\"\(n(right - left))\" height=\"\(n(barHeight))\" "
                    + "fill=\"\(Palette.skipped)\" stroke=\"#8a8a8a\" stroke-width=\"0.5\"><title>\(ReportFormat.xml(tip))</title></rect>")
                note = "skipped" + (step.skipReason.map { ": \($0)" } ?? "")
                noteX = right
            } else if let duration = record.workingDurationMs(of: step) {
                note = ReportFormat.duration(ms: duration)
                if step.attemptCount > 1 { note += " (\(step.attemptCount) attempts)" }
            }
            if !note.isEmpty {
                let anchorEnd = noteX > plotRight - 90
                let at = anchorEnd ? min(noteX, plotRight) - 4 : noteX + 4
                svg.text(x: at, y: top + rowHeight / 2 + 4, note,
                         attributes: "font-size=\"10\" fill=\"#333\"" + (anchorEnd ? " text-anchor=\"end\"" : ""))
            }
        }

        // min_display and the dismissing instant.
        if record.minDisplayMs > 0 {
            let mx = x(record.minDisplayMs)
            svg.line("<line x1=\"\(n(mx))\" y1=\"\(n(rowsTop - 6))\" x2=\"\(n(mx))\" y2=\"\(n(rowsBottom))\" stroke=\"#777\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>")
            svg.text(x: mx, y: rowsBottom + 30, "min_display", attributes: "text-anchor=\"middle\" font-size=\"10\" fill=\"#777\"")
        }
        if let dismissing = record.dismissingAtMs {
            let dx = x(dismissing)
            svg.line("<line class=\"dismissing\" x1=\"\(n(dx))\" y1=\"\(n(rowsTop - 14))\" x2=\"\(n(dx))\" y2=\"\(n(rowsBottom + 4))\" stroke=\"#7b2cbf\" stroke-width=\"2\"/>")
            let anchor = dx > plotRight - 80 ? "end" : "middle"
            svg.text(x: dx, y: rowsTop - 16, "dismissing @\(ReportFormat.seconds(ms: dismissing))",
                     attributes: "text-anchor=\"\(anchor)\" font-size=\"11\" font-weight=\"bold\" fill=\"#7b2cbf\"")
        }
        svg.line("</svg>")
        return svg.output
    }

    private static func legend(_ svg: inout SVGText) {
        let items: [(String, String)] = [
            ("succeeded", Palette.succeeded), ("failed", Palette.failed), ("cancelled", Palette.cancelled),
            ("running", Palette.running), ("skipped", Palette.skipped),
            ("loading", Palette.band(.loading)), ("error", Palette.band(.error)), ("dismissing", Palette.band(.dismissing)),
        ]
        var lx = 10.0
        for (name, fill) in items {
            svg.line("<rect x=\"\(n(lx))\" y=\"31\" width=\"12\" height=\"10\" fill=\"\(fill)\" stroke=\"#999\" stroke-width=\"0.5\"/>")
            svg.text(x: lx + 16, y: 40, name, attributes: "font-size=\"11\"")
            lx += 22 + Double(name.count) * 7
        }
    }

    private static func phaseTitle(_ mark: LaunchRecord.PhaseMark, until end: Int64) -> String {
        var text = "\(mark.phase.rawValue) @\(ReportFormat.seconds(ms: mark.atMs)) +\(ReportFormat.duration(ms: end - mark.atMs))"
        if let code = mark.code { text += " (\(code)" + (mark.step.map { ", \($0)" } ?? "") + ")" }
        return text
    }

    /// A coordinate with at most one decimal.
    static func n(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
