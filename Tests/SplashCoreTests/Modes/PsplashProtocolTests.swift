import SplashCore
import SplashProtocol
import Testing

/// psplash's FIFO commands, read as psplash's `parse_command` reads them (psplash.c), and the
/// framing of `psplash_main`, without its losses.
@Suite struct PsplashProtocolTests {
    func parse(_ text: String) -> PsplashCommand { PsplashCommand.parse(Array(text.utf8)) }

    @Test func commandsAsPsplashReadsThem() {
        #expect(parse("QUIT") == .quit)
        #expect(parse("QUIT now") == .quit, "strtok's first word is QUIT")
        #expect(parse("PROGRESS 42") == .progress(42))
        #expect(parse("PROGRESS   7") == .progress(7), "atoi skips white space")
        #expect(parse("PROGRESS 12abc") == .progress(12), "atoi stops at the first non-digit")
        #expect(parse("PROGRESS abc") == .progress(0), "atoi of no digits is 0")
        #expect(parse("PROGRESS +5") == .progress(5))
        #expect(parse("PROGRESS -30") == .progress(-30), "psplash fills a negative value from the right")
        #expect(parse("PROGRESS 250") == .progress(100))
        #expect(parse("PROGRESS 99999999999999999999999") == .progress(100), "saturates, never overflows")
        #expect(parse("PROGRESS -99999999999999999999999") == .progress(-100))
        #expect(parse("  PROGRESS 3") == .progress(3), "strtok skips leading spaces")
        #expect(parse("MSG Copying image to rootfs.0") == .message("Copying image to rootfs.0"))
        #expect(parse("MSG  two spaces") == .message(" two spaces"), "the argument is the rest after one space")
        #expect(parse("MSG") == .message(""))
        #expect(parse("MSG hi\r") == .message("hi"), "a CRLF writer's \\r is not part of the message")
        #expect(parse("msg lower") == .ignored(reason: "an unknown command"), "psplash's words are upper case")
    }

    @Test func whatPsplashCrashesOnIsIgnoredWithItsReason() {
        #expect(parse("") == .ignored(reason: "an empty command"))
        #expect(parse("   ") == .ignored(reason: "a command of spaces alone"))
        #expect(parse("PROGRESS") == .ignored(reason: "PROGRESS without an argument"))
        #expect(parse("PROGRESS ") == .ignored(reason: "PROGRESS without an argument"))
    }

    /// docs/update-and-shutdown.md said both "no digits is 0" and "a PROGRESS with no number is
    /// ignored" (issue 48, item 12). psplash: `strtok(NULL, "\0")` gives no argument when
    /// nothing follows the word's space (older psplash then crashes in `atoi(NULL)`, newer ones
    /// draw nothing): ignored. An argument goes to `atoi`, and one with no digits is 0.
    @Test func aProgressWithNoArgumentIsIgnoredOneWithNoDigitsIsZero() {
        for command in ["PROGRESS", "PROGRESS ", "  PROGRESS"] {
            #expect(parse(command) == .ignored(reason: "PROGRESS without an argument"), "\(command)")
        }
        for command in ["PROGRESS x", "PROGRESS  ", "PROGRESS -", "PROGRESS +x5"] {
            #expect(parse(command) == .progress(0), "\(command)")
        }
    }

    @Test func fractionsShowTheFillsLength() {
        #expect(PsplashCommand.fraction(42) == 0.42)
        #expect(PsplashCommand.fraction(-30) == 0.3)
        #expect(PsplashCommand.fraction(100) == 1)
        #expect(PsplashCommand.progress(-30).updateInput == .progress(0.3))
        #expect(PsplashCommand.message("x").updateInput == .message("x"))
        #expect(PsplashCommand.quit.updateInput == .quit)
        #expect(PsplashCommand.ignored(reason: "an unknown command").updateInput == nil)
    }

    @Test func binaryTextIsReadWithReplacementCharacters() {
        let command = PsplashCommand.parse(Array("MSG ".utf8) + [0xFF, 0xFE, 0x41])
        #expect(command == .message("\u{FFFD}\u{FFFD}A"))
    }

    @Test func framingAtNULsAndNewlinesAcrossReads() {
        var reader = PsplashReader()
        // psplash-write: the argument and its NUL; swupdate-progress: several in one read.
        #expect(reader.feed(Array("PROGRESS 0\0MSG FAILURE\0".utf8)) == [.command(.progress(0)), .command(.message("FAILURE"))])
        // echo: a newline; a command in pieces.
        #expect(reader.feed(Array("PROGR".utf8)).isEmpty)
        #expect(reader.pendingBytes == 5)
        #expect(reader.feed(Array("ESS 10\nQU".utf8)) == [.command(.progress(10))])
        #expect(reader.feed(Array("IT\0".utf8)) == [.command(.quit)])
        #expect(reader.pendingBytes == 0)
    }

    @Test func aCommandOverPsplashsBufferIsDroppedToItsEnd() {
        var reader = PsplashReader()
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        #expect(reader.feed(Array("MSG ".utf8) + long).isEmpty)
        #expect(reader.pendingBytes == 0, "nothing over the bound is kept")
        #expect(reader.feed(Array("\0PROGRESS 5\0".utf8)) == [.tooLong(bytes: 10_000_004), .command(.progress(5))])
        // Exactly at the bound is a command.
        let edge = Array("MSG ".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: PsplashReader.maxCommandBytes - 4)
        #expect(reader.feed(edge + [0]) == [.command(.message(String(repeating: "y", count: PsplashReader.maxCommandBytes - 4)))])
    }
}

extension PsplashProtocolTests {
    @Test func aFloodInOneReadCostsAFewInputsAndKeepsWhatTheViewShows() {
        var reader = PsplashReader()
        let flood = String(repeating: "PROGRESS 1\0MSG a\0", count: 5000) + "PROGRESS 7\0MSG last\0QUIT\0QUIT\0MSG again\0NOPE\0"
        let items = reader.feed(Array(flood.utf8))
        let kept = PsplashReader.coalesced(items)
        #expect(kept == [
            .command(.progress(7)), .command(.message("last")), .command(.quit), .command(.message("again")),
            .command(.ignored(reason: "an unknown command")),
        ])
        // What a mode machine makes of both is the same.
        func end(_ items: [PsplashReader.Item]) -> ModeMachine {
            var modes = ModeMachine()
            for case .command(let command) in items {
                if let input = command.updateInput { _ = modes.update(input, from: .psplash, at: .zero) }
            }
            return modes
        }
        #expect(end(kept).update == end(items).update)
        #expect(end(kept).update == UpdateStatus(source: .psplash, message: "again"))
    }
}
