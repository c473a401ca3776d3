import Foundation
import SplashClient
import SplashCore
import SplashJSON
import Testing
import TestSupport

/// Issue 12: a request `id` of 9007199254740993 came back as `9007199254740992.0`. Design §5: the
/// `id` is echoed exactly as it was sent (any JSON value, a 64-bit integer kept digit for digit).
@MainActor @Suite struct RequestIdChaosTests {
    static let config = """
        [splash]
        min_display = "0ms"

        [[step]]
        id = "hold"
        plugin = "signal"
        """

    /// Ids as sent, and as the reply must carry them (the same text, except for numbers that are
    /// not written as integers: those come back as the same value).
    static let ids: [(sent: String, echoed: String)] = [
        ("9007199254740993", "9007199254740993"),
        ("9007199254740992", "9007199254740992"),
        ("-9007199254740993", "-9007199254740993"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("9223372036854775807", "9223372036854775807"),
        ("9223372036854775808", "9223372036854775808"),
        ("18446744073709551615", "18446744073709551615"),
        ("1234567890123456789", "1234567890123456789"),
        ("0", "0"),
        ("-1", "-1"),
        ("42", "42"),
        ("1.5", "1.5"),
        ("-0.25", "-0.25"),
        ("1e3", "1000"),
        ("1e300", "1e+300"),
        (#""x""#, #""x""#),
        (#""\u001b[31m\n""#, #""\u001b[31m\n""#),
        ("null", "null"),
        ("true", "true"),
        (#"{"a":1}"#, #"{"a":1}"#),
        (#"{"n":9007199254740993,"m":[18446744073709551615]}"#, #"{"m":[18446744073709551615],"n":9007199254740993}"#),
        ("[1]", "[1]"),
        ("[]", "[]"),
    ]

    @Test func everyIdIsEchoedExactlyOnEveryKindOfReply() throws {
        let daemon = try DaemonProcess(config: Self.config)
        let client = try daemon.connect()
        for (sent, echoed) in Self.ids {
            // A reply of the connection itself, one of the launch controller, and a bad request.
            let requests: [(line: String, reply: String)] = [
                (#"{"cmd":"ping","id":\#(sent)}"#, #"{"type":"ok","id":\#(echoed)}"#),
                (#"{"id":\#(sent),"cmd":"retry"}"#, #"{"type":"error","id":\#(echoed),"code":"invalid-transition""#),
                (#"{"cmd":"fly","id":\#(sent)}"#, #"{"type":"error","id":\#(echoed),"code":"bad-request""#),
            ]
            for (line, reply) in requests {
                try client.sendRaw(Array((line + "\n").utf8))
                let answer = String(decoding: try client.receiveLine(timeout: .seconds(5)), as: UTF8.self)
                #expect(answer.hasPrefix(reply), "sent \(line)")
            }
        }
        // The client library reads them back as the same values.
        try client.sendRaw(Array(#"{"cmd":"ping","id":9007199254740993}"#.utf8) + [0x0A])
        #expect(try client.receive(timeout: .seconds(5)) == .ok(id: JSONValue(Int64(9_007_199_254_740_993))))
        try client.sendRaw(Array(#"{"cmd":"ping","id":18446744073709551615}"#.utf8) + [0x0A])
        #expect(try client.receive(timeout: .seconds(5)) == .ok(id: JSONValue(UInt64.max)))
        #expect(daemon.isRunning)
    }

    /// A number JSON allows but no 64-bit float holds is a bad request, like any line the daemon
    /// cannot read; the connection stays usable.
    @Test func aNumberBeyondADoubleIsABadRequest() throws {
        let daemon = try DaemonProcess(config: Self.config)
        let client = try daemon.connect()
        for id in ["1e400", "-1e400"] {
            try client.sendRaw(Array(#"{"cmd":"ping","id":\#(id)}"#.utf8) + [0x0A])
            let reply = try client.receive(timeout: .seconds(5))
            guard case .error(let error) = reply else {
                Issue.record("\(id): \(reply)")
                continue
            }
            #expect(error.code == .badRequest, "\(id)")
        }
        #expect(try client.request(.ping) == .ok(id: 1))
    }
}
