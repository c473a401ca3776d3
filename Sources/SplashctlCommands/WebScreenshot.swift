import AsyncHTTPClient
import Glibc
import NIOCore
import SplashCore
import SplashJSON
import SplashProtocol
import SplashSupport

/// `splashctl screenshot --web`: the page's own picture, asked of splashd-web's bridge with the
/// token of its URL file (`GET /screenshot.png?token=…`; docs/update-and-shutdown.md).
enum WebScreenshot {
    /// The most read from the URL file, and from the bridge's answer.
    static let maxURLFile = 4096
    static let maxPicture = 16 * 1024 * 1024 + 4096

    /// Why a web screenshot was not written, and the exit status that says so.
    struct Failure: Error {
        var status: Int32
        var message: String
    }

    /// The screenshot's URL from the page's URL (`http://127.0.0.1:8177/?token=…`).
    static func screenshotURL(fromPageURL text: String) -> String? {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard line.hasPrefix("http://"), let query = line.firstIndex(of: "?") else { return nil }
        let authority = line[line.index(line.startIndex, offsetBy: 7)..<query].prefix { $0 != "/" }
        guard !authority.isEmpty, line[query...].contains("token=") else { return nil }
        return "http://\(authority)/screenshot.png\(line[query...])"
    }

    /// Asks the bridge named in `urlFile` and writes the PNG to `file`; the line to print.
    static func take(urlFile: String, to file: String) throws(Failure) -> String {
        let fd = open(urlFile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw Failure(status: errno == EACCES ? 77 : 69, message: "cannot read splashd-web's URL file \(urlFile): \(reason)")
        }
        var bytes = [UInt8](repeating: 0, count: maxURLFile)
        let count = read(fd, &bytes, bytes.count)
        close(fd)
        guard count > 0, let url = screenshotURL(fromPageURL: String(decoding: bytes[..<count], as: UTF8.self)) else {
            throw Failure(status: 69, message: "\(urlFile) does not hold splashd-web's URL with its token")
        }
        let outcome: Result<(UInt, String, [UInt8]), any Error>
        do {
            let request = try HTTPClient.Request(url: url)
            let answer = try HTTPClient.shared.execute(request: request, delegate: ResponseAccumulator(request: request, maxBodySize: maxPicture),
                                                       deadline: .now() + .seconds(20)).wait()
            outcome = .success((answer.status.code, answer.headers.first(name: "content-type") ?? "",
                                answer.body.map { Array($0.readableBytesView) } ?? []))
        } catch {
            outcome = .failure(error)
        }
        let (status, type, body): (UInt, String, [UInt8])
        switch outcome {
        case .success(let answer): (status, type, body) = answer
        case .failure(let error): throw Failure(status: 69, message: "cannot reach splashd-web: \(error)")
        }
        guard status == 200, type == "image/png", body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), body.count >= 24 else {
            var said = String(decoding: body.prefix(300), as: UTF8.self)
            while said.last?.isWhitespace == true { said.removeLast() }
            said = LogEscaping.escaped(said)
            throw Failure(status: status == 409 ? 75 : 1, message: "splashd-web answered \(status): \(said)")
        }
        do {
            try AtomicFile.write(body, to: file)
        } catch {
            throw Failure(status: 1, message: "\(error)")
        }
        let width = body[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = body[20..<24].reduce(0) { $0 << 8 | Int($1) }
        return "\(file): the web page, \(width)x\(height)"
    }
}
