import Foundation
import SplashCore
import Testing
import TestSupport

/// `splashd-web` as a process: its command line, the URL file, readiness, and what it serves to
/// whom over real TCP. (The page itself, and the WebSocket, are tested in a real browser:
/// Tests/browser.)
@MainActor @Suite struct SplashdWebEndToEndTests {
    nonisolated static var binary: String { "\(Binaries.directory)/splashd-web" }
    nonisolated static var webRoot: String { "\(Binaries.packageRoot)/renderer/web" }
    nonisolated static func theme(_ name: String) -> String { "\(Binaries.packageRoot)/renderer/themes/\(name)" }

    @Test(arguments: ["default", "reference", "reference-reveal"])
    func theShippedThemesPassCheck(theme: String) throws {
        let result = try ProcessRunner.run(Self.binary, ["check", "--theme", Self.theme(theme)])
        #expect(result.status == 0 && result.stdout.hasPrefix("theme \""), "\(result.stdout)\(result.stderr)")
    }

    @Test func aBrokenThemeIsRefusedWithEveryProblem() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let toml = try dir.write("theme.toml", "name = \"A\"\nindicator = \"bar\"\n[colors.dark]\nbackground = \"url(x)\"\n")
        let check = try ProcessRunner.run(Self.binary, ["check", "--theme", dir.path])
        #expect(check.status == 78)
        #expect(check.stderr.contains("\(toml):2: indicator must be one of"), "\(check.stderr)")
        #expect(check.stderr.contains("\(toml):4: background in [colors.dark] must be a color"), "\(check.stderr)")
        // The server refuses the same theme at start, with the same words.
        let run = try ProcessRunner.run(Self.binary, ["--theme", dir.path, "--web-root", Self.webRoot, "--listen", "127.0.0.1:0"])
        #expect(run.status == 78 && run.stderr.contains("\(toml):2: indicator"), "\(run.stderr)")
    }

    @Test(arguments: ["0.0.0.0:0", "192.0.2.1:8177", "example.invalid:8177", "[::]:0", "8177"])
    func onlyLoopbackAddressesAreServed(listen: String) throws {
        let run = try ProcessRunner.run(Self.binary, ["--theme", Self.theme("default"), "--web-root", Self.webRoot, "--listen", listen])
        #expect(run.status != 0 && run.stdout.isEmpty, "\(listen): \(run.stdout)")
        #expect(run.stderr.contains("loopback") || run.stderr.contains("HOST:PORT"), "\(listen): \(run.stderr)")
    }

    @Test func servesThePageTheThemeAndRefusesOtherHosts() async throws {
        let web = try WebProcess()
        defer { web.stop() }
        #expect(web.url.hasPrefix("http://127.0.0.1:") && web.url.contains("/?token="))
        let token = try #require(web.url.split(separator: "=").last)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        var info = stat()
        #expect(stat(web.urlFile, &info) == 0 && info.st_mode & 0o777 == 0o640, "the URL holds the token: owner and group only")
        #expect(try String(contentsOfFile: web.urlFile, encoding: .utf8) == web.url + "\n")
        let ready = web.notify.messages.contains { $0.split(separator: "\n").contains("READY=1") } || web.notify.waitFor(line: "READY=1") != nil
        #expect(ready, "READY=1 once it serves")

        let page = try web.get("/")
        #expect(page.status == 200 && page.body.contains("--bg:#0D7377;") && page.body.contains("<title>Ship That App</title>"))
        #expect(page.headers.contains("Referrer-Policy: no-referrer") && page.headers.contains("Content-Security-Policy: default-src 'none'"))
        #expect(!page.body.contains(String(token)), "the token is not in the page")
        let logo = try web.get("/theme/logo.svg")
        #expect(logo.status == 200 && logo.headers.contains("Content-Type: image/svg+xml"))
        for path in ["/theme/theme.toml", "/theme/../theme.toml", "/nothing", "/splash.css/.."] {
            #expect(try web.get(path).status == 404, "\(path)")
        }
        #expect(try web.get("/ws").status == 403, "not an upgrade")
        #expect(try web.get("/", host: "rebound.example:80").status == 403, "DNS rebinding")
        #expect(try web.get("/", method: "POST").status == 405)
    }

    @Test func anUnwritableURLFileStopsItWithoutServing() throws {
        let run = try ProcessRunner.run(
            Self.binary,
            ["--theme", Self.theme("default"), "--web-root", Self.webRoot, "--listen", "127.0.0.1:0", "--url-file", "/nonexistent/dir/url"]
        )
        #expect(run.status == 73 && run.stderr.contains("cannot write /nonexistent/dir/url"), "\(run.status) \(run.stderr)")
    }
}

/// A running `splashd-web` (no daemon behind it: it keeps trying to reach one) and a tiny HTTP client.
final class WebProcess {
    let directory: TemporaryDirectory
    let process = Process()
    let urlFile: String
    let notify: NotifyListener
    private(set) var url = ""

    init() throws {
        directory = try TemporaryDirectory(prefix: "splashd-web")
        urlFile = directory.file("url")
        notify = try NotifyListener(path: directory.file("notify"))
        process.executableURL = URL(fileURLWithPath: SplashdWebEndToEndTests.binary)
        process.arguments = [
            "--socket", directory.file("absent.sock"), "--listen", "127.0.0.1:0", "--theme", SplashdWebEndToEndTests.theme("reference"),
            "--web-root", SplashdWebEndToEndTests.webRoot, "--url-file", urlFile,
        ]
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        env["NOTIFY_SOCKET"] = notify.path
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now.advanced(by: eventDeadline * waitScale)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: urlFile, encoding: .utf8), text.hasSuffix("\n") {
                url = String(text.dropLast())
                return
            }
            _ = notify.waitFor(timeout: .milliseconds(50)) { $0.contains("READY=1") }
        }
        stop()
        throw CocoaError(.fileNoSuchFile)
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        directory.remove()
    }

    struct Response {
        var status: Int
        var headers: String
        var body: String
    }

    /// One HTTP/1.1 request over a new TCP connection (`Connection: close`), read to the end.
    func get(_ path: String, host: String? = nil, method: String = "GET") throws -> Response {
        let authority = url.dropFirst("http://".count).prefix { $0 != "/" }
        let port = UInt16(authority.split(separator: ":").last!)!
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? String(authority))\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Response(status: status, headers: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
