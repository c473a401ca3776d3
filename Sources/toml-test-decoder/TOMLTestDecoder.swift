#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SplashConfig

/// toml-test's decoder interface over splashd's TOML reader: a TOML document on stdin; its tagged
/// JSON on stdout and exit 0, or a message on stderr and exit 1 when it is not valid TOML 1.0.
///
/// Run the conformance suite with `toml-test ./.build/debug/toml-test-decoder` (`make toml-test`).
@main
enum TOMLTestDecoder {
    static func main() {
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                fail("cannot read stdin: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            input.append(contentsOf: buffer[..<count])
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
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
