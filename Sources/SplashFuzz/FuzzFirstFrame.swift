import SplashKMS
import SplashScene

/// What the native renderer reads of its first-frame cache at start: a picture file
/// (`FirstFrameCache.decode`, a file from disk after a power cut or worse), and the hand-over
/// `splashd-kms-first-frame` leaves in the environment (`FirstFrameIndex.handOver`). A file
/// accepted must be exactly what `encode` writes for its key.
enum FuzzFirstFrame {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let file = Array(bytes)
        // The key the header claims (small sizes, so an accepted picture is a short input), and a
        // fixed one: each decode is bounded by the file, whatever the header says.
        func field(_ at: Int) -> Int {
            guard file.count >= at + 4 else { return 0 }
            return Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16 | Int(file[at + 3]) << 24
        }
        var fingerprint: UInt64 = 0
        if file.count >= 16 { for i in 0..<8 { fingerprint |= UInt64(file[8 + i]) << (8 * UInt64(i)) } }
        let keys = [
            FirstFrameCache.Key(fingerprint: fingerprint, width: field(16) & 0xFF, height: field(20) & 0xFF, turn: field(24)),
            FirstFrameCache.Key(fingerprint: fingerprint, width: 4, height: 3, turn: 0),
        ]
        for key in keys {
            if case .success(let pixels) = FirstFrameCache.decode(file, for: key) {
                FuzzFailure.check(FirstFrameCache.encode(key, pixels: Array(pixels)) == file, "an accepted picture is what encode writes")
            }
        }
        if let handOver = FirstFrameIndex.handOver(String(decoding: file, as: UTF8.self)) {
            FuzzFailure.check(handOver.descriptor > 2 && !handOver.framebuffers.isEmpty && !handOver.framebuffers.contains(0),
                              "a hand-over names a descriptor past stderr and framebuffers")
        }
    }
}
