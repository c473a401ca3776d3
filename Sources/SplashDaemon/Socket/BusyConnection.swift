import SplashCore
import SplashProtocol

/// What a connection over the cap gets: one `error` line with code `busy` (with its `\n`), then
/// the connection is closed (`AnswerAndClose`). No `hello`, and nothing the client sends is read.
enum BusyConnection {
    static func line(capacity: Int) -> [UInt8] {
        let error = ProtocolError(
            code: .busy, message: "splashd is serving its maximum of \(capacity) clients; try again later"
        )
        return ServerMessage.error(error).line() + [UInt8(ascii: "\n")]
    }
}
