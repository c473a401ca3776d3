import SplashCore

/// The time axis: a round step giving at most ten ticks.
struct TimeAxis {
    let stepMs: Int64
    let maxMs: Int64

    init(endMs: Int64) {
        let end = max(endMs, 1)
        var step: Int64 = 1
        search: while true {
            for factor: Int64 in [1, 2, 5] where end / (step * factor) < 10 {
                step *= factor
                break search
            }
            step *= 10
        }
        stepMs = step
        maxMs = (end + step - 1) / step * step
    }

    var ticks: [Int64] { Array(stride(from: 0, through: maxMs, by: Int(stepMs))) }

    func label(_ ms: Int64) -> String { ms == 0 ? "0" : DurationFormat.format(.milliseconds(ms)) }
}

/// Accumulates SVG lines.
struct SVGText {
    private(set) var output = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    mutating func line(_ text: String) {
        output += text
        output += "\n"
    }

    mutating func text(x: Double, y: Double, _ content: String, attributes: String = "") {
        let extra = attributes.isEmpty ? "" : " " + attributes
        line("<text x=\"\(GanttPlot.n(x))\" y=\"\(GanttPlot.n(y))\"\(extra)>\(ReportFormat.xml(content))</text>")
    }
}
