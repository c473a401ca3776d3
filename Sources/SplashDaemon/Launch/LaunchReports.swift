import SplashCore
public import SplashJSON
import SplashProtocol
import SplashReports

/// The answer to a read-only report command: `data` for programs, `text` for terminals.
public typealias ReportAnswer = (data: JSONValue, text: String?)

/// Answers `blame`, `critical-chain`, `plot`, `graph` and `history` from the graph and the
/// launches recorded: pure functions of what the controller hands over.
enum LaunchReports {
    static func answer(_ report: Report, graph: StepGraph, history: LaunchHistory) -> Result<ReportAnswer, ProtocolError> {
        switch report {
        case .graph:
            return .success((data: .object(["dot": .string(GraphExport.dot(graph))]), text: nil))
        case .records:
            let records = history.log.records.map(\.jsonValue)
            return .success((data: .array(records), text: nil))
        case .history:
            let records = history.log.records
            return .success((data: HistorySummary.json(records), text: HistorySummary.lines(records).joined(separator: "\n")))
        case .blame, .criticalChain, .plot:
            guard let record = history.latest else {
                return .failure(ProtocolError(code: .unavailable, message: "no launch recorded yet"))
            }
            switch report {
            case .blame:
                let entries = Blame.rank(record)
                return .success((data: .object(["launch": .string(record.launch), "steps": Blame.json(entries)]), text: Blame.text(entries)))
            case .criticalChain:
                let chain = CriticalChain.compute(record)
                return .success((data: chain.json, text: chain.text))
            default:
                return .success((data: .object(["launch": .string(record.launch), "svg": .string(GanttPlot.svg(record))]), text: nil))
            }
        }
    }
}
