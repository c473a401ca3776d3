import SplashCore
import SplashPlugins

/// A plugin's stdout: split into lines in two chunks, the way the pipe delivers it, and each line
/// classified.
enum FuzzPluginOutput {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        var splitter = LineSplitter(maxLength: 256)
        let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
        var lines = splitter.feed(UnsafeRawBufferPointer(rebasing: bytes[..<cut]))
        lines += splitter.feed(UnsafeRawBufferPointer(rebasing: bytes[cut...]))
        for line in lines {
            FuzzFailure.check(line.text.utf8.count <= 256 * 3, "a line of \(line.text.utf8.count) bytes passed the cap")
            if case .report(let progress?, _, _) = PluginOutputLine.parse(line.text) {
                FuzzFailure.check((0...1).contains(progress), "progress \(progress) outside 0...1")
            }
        }
    }
}
