import Foundation
import Testing
import TestSupport

/// The `toml-test-decoder` binary speaks toml-test's decoder interface: TOML on stdin; tagged
/// JSON on stdout and exit 0, or a message on stderr and exit 1.
@MainActor @Suite struct TOMLTestDecoderEndToEndTests {
    static var decoder: String { "\(Binaries.directory)/toml-test-decoder" }

    /// Runs the decoder with `input` on its standard input.
    static func decode(_ input: [UInt8]) throws -> CommandResult {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("input.toml")
        guard FileManager.default.createFile(atPath: path, contents: Data(input)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return try ProcessRunner.run("/bin/sh", ["-c", "exec \"$0\" < \"$1\"", decoder, path])
    }

    @Test(arguments: [
        ("", "{}"),
        ("a = 1", #"{"a":{"type":"integer","value":"1"}}"#),
        (
            "[t]\nd = 2024-02-29\nx = [0.5, 'y']\n[[t.list]]\n",
            #"{"t":{"d":{"type":"date-local","value":"2024-02-29"},"x":[{"type":"float","value":"0.5"},{"type":"string","value":"y"}],"list":[{}]}}"#
        ),
        ("\u{FEFF}when = 1979-05-27 07:32:00Z", #"{"when":{"type":"datetime","value":"1979-05-27T07:32:00Z"}}"#),
    ])
    func aValidDocumentIsPrintedAsTaggedJSON(input: String, json: String) throws {
        let result = try Self.decode(Array(input.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == json + "\n")
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: [
        ("a = 2023-02-29", "toml-test-decoder: line 1, column 5: invalid value 2023-02-29\n"),
        ("# ok\n[a]\n[a]", "toml-test-decoder: line 3, column 4: table \"a\" is defined more than once\n"),
        ("a = \"\u{7F}\"", "toml-test-decoder: line 1, column 6: control character U+007F in a string: write it as an escape\n"),
        ("a = 1_", "toml-test-decoder: line 1, column 5: invalid value 1_\n"),
    ])
    func anInvalidDocumentExitsOneWithTheReason(input: String, message: String) throws {
        let result = try Self.decode(Array(input.utf8))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == message)
    }

    @Test func bytesThatAreNotUTF8ExitOne() throws {
        let result = try Self.decode(Array("a = 'x".utf8) + [0xC0, 0xAF] + Array("'".utf8))
        #expect(result.status == 1)
        #expect(result.stderr == "toml-test-decoder: line 1, column 7: not valid UTF-8 (byte 0xc0)\n")
    }
}
