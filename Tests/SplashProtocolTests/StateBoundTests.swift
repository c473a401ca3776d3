import SplashProtocol
import Testing

/// A state line never exceeds the protocol's 64 KiB bound, whatever a plugin or a failure puts in.
@Suite struct StateBoundTests {
    func state(steps: [StateMessage.Step] = [], message: String? = "Loading", error: ErrorInfo? = nil) -> StateMessage {
        StateMessage(seq: 7, launch: "l-1", phase: error == nil ? .loading : .error, slow: false, progress: 0.5, message: message,
                     elapsedMs: 1200, steps: steps, error: error, destination: nil)
    }

    @Test func aStateThatFitsIsSentAsItIs() {
        let small = state(steps: [.init(id: "a", status: .failed, attempt: 1, durationMs: 3, label: "A", reason: "no network")])
        let (bounded, line) = small.bounded()
        #expect(bounded == small)
        #expect(line == Array(ServerMessage.state(small).encoded().utf8))
    }

    /// The probe's case: a plugin wrote 34,000 bytes to stderr and failed; its state was 68,484
    /// bytes (the text as the step's reason and the error's detail).
    @Test func aFailingPluginsLongOutputIsCutWithAMarker() throws {
        let output = String(repeating: "stderr line\n", count: 34_000 / 12)
        let error = ErrorInfo(code: .stepFailed, message: output, step: "a", actions: [.retry], detail: output)
        let big = state(steps: [.init(id: "a", status: .failed, attempt: 1, durationMs: 3, label: "A", reason: output)], message: output,
                        error: error)
        let line = ServerMessage.state(big).line()
        #expect(line.count <= SocketDefaults.maxLineBytes)
        guard case .state(let read)? = ServerMessage.decode(line) else { Issue.record("not a state"); return }
        #expect(read.steps[0].reason?.utf8.count == StateMessage.reasonBytes)
        #expect(read.steps[0].reason?.hasSuffix("…") == true)
        #expect(read.error?.detail?.utf8.count == StateMessage.textBytes)
        #expect(read.message?.hasPrefix("stderr line stderr line") == true, "its newlines are spaces (DisplayText)")
    }

    /// 300 steps, each with a long reason (twice as long in JSON): the reasons shrink until the
    /// line fits, and every step keeps its id and label.
    @Test func manyStepsKeepTheirIdsAndLabelsAndTheirReasonsShrink() throws {
        let steps = (0..<300).map {
            StateMessage.Step(id: "step-\($0)", status: .skipped, attempt: 0, durationMs: 0, label: "Step \($0)",
                              reason: String(repeating: "\"", count: 400))
        }
        let line = ServerMessage.state(state(steps: steps)).line()
        #expect(line.count <= SocketDefaults.maxLineBytes)
        guard case .state(let read)? = ServerMessage.decode(line) else { Issue.record("not a state"); return }
        #expect(read.steps.map(\.id) == steps.map(\.id))
        #expect(read.steps.map(\.label) == steps.map(\.label))
        #expect(read.steps.allSatisfy { ($0.reason?.utf8.count ?? 0) < 400 })
    }

    /// Whatever the state, the line fits: past what `check` lets through, labels and then steps go.
    @Test func evenAGraphCheckWouldRefuseFits() {
        let steps = (0..<2000).map {
            StateMessage.Step(id: "a-step-with-a-long-id-\($0)", status: .pending, attempt: 0, durationMs: 0,
                              label: String(repeating: "L", count: 100))
        }
        let line = ServerMessage.state(state(steps: steps)).line()
        #expect(line.count <= SocketDefaults.maxLineBytes)
        #expect(ServerMessage.decode(line) != nil)
    }

    @Test func textsAreCutOnWholeScalars() {
        #expect("héllo".cut(toUTF8Bytes: 10) == "héllo")
        #expect("ééééé".cut(toUTF8Bytes: 8) == "éé…")
        #expect("ééééé".cut(toUTF8Bytes: 7) == "éé…")
        #expect("ééééé".cut(toUTF8Bytes: 6) == "é…")
        #expect("abc".cut(toUTF8Bytes: 0) == "…")
    }

    /// A request's id is echoed in its reply: one too long for a reply to fit is refused, and
    /// not echoed.
    @Test func aRequestIdOverItsBoundIsRefused() {
        let long = String(repeating: "i", count: 300)
        guard case .failure(let error) = Request.parse(Array(#"{"cmd":"state","id":"\#(long)"}"#.utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(error.code == .badRequest && error.id == nil)
        #expect(error.message.contains("at most 256"))
        guard case .success = Request.parse(Array(#"{"cmd":"state","id":"\#(String(repeating: "i", count: 200))"}"#.utf8)) else {
            Issue.record("refused")
            return
        }
    }
}
