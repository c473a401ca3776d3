import Logging
import NIOCore
import NIOEmbedded
import SplashTheme
import SplashWeb

/// `splashd-web`'s connections: what a local client sends, through the pipeline every accepted
/// connection gets (`WebServer.configure`: idle timeout, HTTP, the WebSocket upgrade, the page's
/// socket and the bridge), in an `EmbeddedChannel`. The bridge never connects to splashd here.
enum FuzzWeb {
    static let token = "0123456789abcdef0123456789abcdef"
    static let host = "127.0.0.1:8177"
    static let site = WebSite(
        theme: Theme(name: "fuzz"),
        resources: ["/": WebSite.Resource(bytes: Array("<!doctype html><title>fuzz</title>".utf8), contentType: "text/html")]
    )
    /// The page's own upgrade request, with the token: what precedes the frames of `runFrames`.
    static let upgrade = Array(
        ("GET /ws?token=\(token) HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8
    )

    /// Arbitrary bytes as a client's side of a connection: requests, perhaps an upgrade, frames.
    /// Every byte the bridge writes is an HTTP response until a `101`, and never holds the token.
    static func runHTTP(_ bytes: UnsafeRawBufferPointer) {
        let output = connection(Array(bytes))
        guard !output.isEmpty else { return }
        FuzzFailure.check(output.starts(with: Array("HTTP/1.".utf8)), "the bridge wrote something that is not an HTTP response first")
        FuzzFailure.check(!contains(output, Array(token.utf8)), "a response holds the token")
    }

    /// Arbitrary bytes as the frames of a page that upgraded with the token. What the bridge
    /// writes after `101` is well-formed server frames (unmasked; text, pong or close), nothing
    /// after a close, and no more answers than the page's command budget allows.
    static func runFrames(_ bytes: UnsafeRawBufferPointer) {
        let started = ContinuousClock.now
        let output = connection(upgrade + Array(bytes))
        let elapsed = ContinuousClock.now - started
        guard let end = firstIndex(of: Array("\r\n\r\n".utf8), in: output) else {
            return FuzzFailure.check(false, "no answer to the upgrade")
        }
        FuzzFailure.check(output.starts(with: Array("HTTP/1.1 101".utf8)), "the page's upgrade was refused")
        var frames = output[(end + 4)...]
        var texts = 0
        var closed = false
        var opcodes: [UInt8] = []
        while !frames.isEmpty {
            guard let (opcode, masked, length, header) = frameHeader(frames) else {
                return FuzzFailure.check(false, "a truncated frame from the bridge")
            }
            opcodes.append(opcode)
            FuzzFailure.check(!closed, "a frame after the close frame (opcodes \(opcodes))")
            FuzzFailure.check(!masked, "a masked server frame")
            FuzzFailure.check([0x1, 0x8, 0xA].contains(opcode), "a server frame with opcode \(opcode)")
            if opcode == 0x1 { texts += 1 }
            if opcode == 0x8 { closed = true }
            frames = frames.dropFirst(header + length)
        }
        // The bridge's own status, then at most one answer per message the budget allowed.
        let refills = Int(Double(elapsed.components.seconds + 1) * Double(CommandBudget.perSecond))
        FuzzFailure.check(texts <= 1 + CommandBudget.burst + refills, "\(texts) answers: more than the budget")
    }

    /// The bytes the bridge wrote on a connection that sent `input`.
    static func connection(_ input: [UInt8]) -> [UInt8] {
        let channel = EmbeddedChannel()
        let access = BridgeAccess(host: "127.0.0.1", port: 8177, token: token, appStep: "app")
        let bridge = Bridge(
            eventLoop: channel.eventLoop, socketPath: "/nonexistent/splashd.sock", access: access,
            logger: Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() }
        )
        var output: [UInt8] = []
        do {
            try WebServer.configure(channel, bridge: bridge, site: site, table: ConnectionTable(capacity: 4)).wait()
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
            // In two parts: a request split across reads must be handled as one.
            let cut = input.count / 2
            for part in [input[..<cut], input[cut...]] where channel.isActive {
                _ = try? channel.writeInbound(channel.allocator.buffer(bytes: part))
                channel.embeddedEventLoop.run()
            }
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { output += buffer.readableBytesView }
        } catch {
            FuzzFailure.check(false, "the pipeline could not be set up: \(error)")
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
        // The idle timeout and a closing page's grace are scheduled: let them go.
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        return output
    }

    /// Opcode, mask bit, payload length and header length of the frame `bytes` starts with.
    static func frameHeader(_ bytes: ArraySlice<UInt8>) -> (UInt8, Bool, Int, Int)? {
        let b = Array(bytes.prefix(14))
        guard b.count >= 2 else { return nil }
        let opcode = b[0] & 0x0F, masked = b[1] & 0x80 != 0
        var length = Int(b[1] & 0x7F), header = 2
        if length == 126 {
            guard b.count >= 4 else { return nil }
            length = Int(b[2]) << 8 | Int(b[3])
            header = 4
        } else if length == 127 {
            guard b.count >= 10 else { return nil }
            length = b[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        if masked { header += 4 }
        guard bytes.count >= header + length else { return nil }
        return (opcode, masked, length, header)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        firstIndex(of: needle, in: haystack) != nil
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
