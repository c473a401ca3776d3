import Foundation
import Logging
import SplashClient
import SplashCore
import SplashProtocol
import SplashTelemetry

/// Follows splashd's states on a thread of its own (the client is blocking) and turns them into
/// triggers: one when it connects, one per launch that reaches `finished`.
enum DaemonWatcher {
    static func start(path: String, triggers: AsyncStream<ExportTrigger>.Continuation, logger: Logger) {
        let thread = Thread {
            var delay = 0.05
            var logged = false
            while true {
                do {
                    let connection = try SplashConnection(path: path, timeout: .seconds(5))
                    try connection.send(Request(.subscribe))
                    delay = 0.05
                    logged = false
                    triggers.yield(.connected)
                    var finished: String?
                    while true {
                        guard case .state(let state) = try connection.receive(timeout: nil) else { continue }
                        if state.phase == .finished && state.launch != finished {
                            finished = state.launch
                            triggers.yield(.finished)
                        }
                    }
                } catch {
                    if !logged {
                        logger.notice("splashd at \(path) is not answering (\(error)); connecting again")
                        logged = true
                    }
                    Thread.sleep(forTimeInterval: delay)
                    delay = min(delay * 2, 2)
                }
            }
        }
        thread.start()
    }
}
