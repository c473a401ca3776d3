import SplashCore
import SplashProtocol

/// A request line: parsed the way the connection handler parses it; an accepted request, encoded
/// again, parses to the same request.
enum FuzzRequest {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard case .success(let request) = Request.parse(bytes) else { return }
        let again = Request.parse(Array(request.encoded().utf8))
        FuzzFailure.check(again == .success(request), "\(request) encodes to \(request.encoded()), which parses to \(again)")
    }
}
