#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SplashConfig
import SplashSupport

/// toml-test's decoder interface over splashd's TOML reader: a TOML document on stdin; its tagged
/// JSON on stdout and exit 0, or a message on stderr and exit 1 when it is not valid TOML 1.0.
///
/// Run the conformance suite with `toml-test ./.build/debug/toml-test-decoder` (`make toml-test`).
@main
enum TOMLTestDecoder {
    static func main() {
        let input: [UInt8]
        do {
            // What the daemon reads at most of a configuration.
            input = try FileSystem.read(descriptor: 0, limit: ConfigLoader.maximumFileSize)
        } catch {
            fail("cannot read stdin: \(error.reason)")
        }
        do {
            let json = try TOMLTaggedJSON.decode(input)
            emit(1, json + "\n")
            exit(0)
        } catch {
            fail("line \(error.line), column \(error.column): \(error.message)")
        }
    }

    static func fail(_ message: String) -> Never {
        emit(2, "toml-test-decoder: \(message)\n")
        exit(1)
    }

    static func emit(_ descriptor: Int32, _ text: String) {
        StandardStreams.write(text, to: descriptor)
    }
}
