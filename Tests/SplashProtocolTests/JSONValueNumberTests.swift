import Foundation
import SplashJSON
import SplashProtocol
import Testing

/// Numbers read from JSON and written back: a 64-bit integer keeps every digit (a request `id`
/// is echoed as it was sent), and a whole number is never written with `.0` or an exponent.
@Suite struct JSONValueNumberTests {
    func roundTrip(_ text: String) throws -> String {
        var writer = JSONWriter()
        writer.value(try JSONValue.parse(Array(text.utf8)))
        return writer.string
    }

    @Test(arguments: [
        "9007199254740993", "-9007199254740993", "9007199254740992", "9007199254740991",
        "-9223372036854775808", "9223372036854775807", "9223372036854775808", "18446744073709551615",
        "18446744073709551614", "1234567890123456789", "0", "-1", "42", "1.5", "-0.25", "0.1",
        "[9007199254740993,1,18446744073709551615]", #"{"a":9223372036854775807,"b":null}"#,
    ])
    func integersKeepEveryDigitAndOtherNumbersTheirValue(_ text: String) throws {
        #expect(try roundTrip(text) == text)
    }

    @Test func numbersWrittenOtherwiseComeBackAsTheSameValue() throws {
        #expect(try roundTrip("1e3") == "1000")
        #expect(try roundTrip("1.0") == "1")
        #expect(try roundTrip("-0") == "0")
        #expect(try roundTrip("1e300") == "1e+300")
        #expect(try roundTrip("2.5e-3") == "0.0025")
    }

    @Test func eachNumberHasOneForm() throws {
        #expect(try JSONValue.parse(Array("9007199254740993".utf8)) == .largeInteger(9_007_199_254_740_993))
        #expect(try JSONValue.parse(Array("18446744073709551615".utf8)) == .largeUnsignedInteger(.max))
        #expect(try JSONValue.parse(Array("9223372036854775808".utf8)) == .number(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse(Array("-9223372036854775808".utf8)) == .number(-9_223_372_036_854_775_808))
        #expect(try JSONValue.parse(Array("42".utf8)) == 42)
        #expect(JSONValue(Int64(9_007_199_254_740_993)) == .largeInteger(9_007_199_254_740_993))
        #expect(JSONValue(Int64(1) << 53) == .number(9_007_199_254_740_992))
        #expect(JSONValue(UInt64.max) == .largeUnsignedInteger(.max))
        #expect(JSONValue(UInt64(Int64.max) - 1) == .largeInteger(Int64.max - 1))
    }

    @Test func largeIntegersReadAsNumbers() throws {
        let value = try JSONValue.parse(Array("9007199254740993".utf8))
        #expect(value.int64Value == 9_007_199_254_740_993)
        #expect(value.numberValue == 9_007_199_254_740_992)
        #expect(JSONValue.largeUnsignedInteger(.max).int64Value == nil)
        #expect(JSONValue.number(1.5).int64Value == nil)
        #expect(JSONValue.number(-7).int64Value == -7)
    }

    @Test func codableKeepsTheDigitsToo() throws {
        let value = try JSONValue.parse(Array(#"[9007199254740993,18446744073709551615,-9223372036854775808,1.5]"#.utf8))
        let encoded = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        #expect(encoded == "[9007199254740993,18446744073709551615,-9223372036854775808,1.5]")
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(encoded.utf8)) == value)
    }

    @Test func aRequestIdComesBackDigitForDigit() throws {
        let request = try Request.parse(Array(#"{"cmd":"ping","id":9007199254740993}"#.utf8)).get()
        #expect(ServerMessage.ok(id: request.id).encoded() == #"{"type":"ok","id":9007199254740993}"#)
        let unsigned = try Request.parse(Array(#"{"cmd":"ping","id":18446744073709551615}"#.utf8)).get()
        #expect(ServerMessage.ok(id: unsigned.id).encoded() == #"{"type":"ok","id":18446744073709551615}"#)
        #expect(ServerMessage.decode(Array(#"{"type":"ok","id":9007199254740993}"#.utf8)) == .ok(id: request.id))
    }
}
