import SplashCore
import SplashJSON
import SplashProtocol
import Testing

/// A record crosses the socket as the same model the history file keeps: encoded straight into a
/// `JSONValue` and decoded straight from one, equal to the file's JSON.
@Suite struct LaunchRecordValueTests {
    @Test func theWireValueIsTheFilesLineAndReadsBack() throws {
        var record = try LaunchRecordCodingTests().sampleRecord()
        record.slowAfterMs = 1000
        record.destination = Destination(screen: .login, route: "orders/42")
        let value = record.jsonValue
        #expect(value == (try JSONValue.parse(record.jsonLine())))
        #expect(try LaunchRecord(jsonValue: value) == record)
        // What arrives may come from an older or newer daemon: unknown keys are ignored.
        guard case .object(var members) = value else { Issue.record("not an object"); return }
        members["future_field"] = .object(["x": 1])
        #expect(try LaunchRecord(jsonValue: .object(members)) == record)
    }

    @Test(arguments: [
        JSONValue.null, .array([]), .object([:]), .object(["launch": 7]),
        .object(["launch": "x", "started_at_unix_ms": 1.5]),
        .object([
            "launch": "x",
            "steps": .array([.object(["id": "a", "attempts": .array([.object(["attempt": 1, "start_ms": 0, "outcome": "exploded"])])])]),
        ]),
    ])
    func malformedValuesAreErrors(_ value: JSONValue) {
        #expect(throws: LaunchRecord.DecodingFailure.self) { try LaunchRecord(jsonValue: value) }
    }

    struct Numbers: Codable, Equatable {
        var small: Int
        var large: Int64
        var huge: UInt64
        var fraction: Double
        var absent: Int?
        var list: [Int8?]
        var map: [String: Bool]
    }

    @Test func numbersKeepEveryDigitAndAbsentValuesAreLeftOut() throws {
        let numbers = Numbers(small: -3, large: .max, huge: .max, fraction: 0.25, absent: nil, list: [1, nil], map: ["on": true])
        let value = try JSONValueEncoder().encode(numbers)
        #expect(value == .object([
            "small": -3, "large": .largeInteger(.max), "huge": .largeUnsignedInteger(.max), "fraction": 0.25,
            "list": .array([1, nil]), "map": .object(["on": true]),
        ]))
        #expect(try JSONValueDecoder().decode(Numbers.self, from: value) == numbers)
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int8.self, from: 300) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: 1.5) }
    }
}
