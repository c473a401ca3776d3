/// A font file's bytes with a family name changed, for tests that need a font nothing on the
/// system has (fontconfig would otherwise take the system's copy for it): every occurrence of
/// `from` in the name table, as ASCII (Macintosh records) and as UTF-16BE (Windows records),
/// replaced by `to`, which has the same length, so nothing moves.
public func renamingFont(_ font: [UInt8], from: String, to: String) -> [UInt8] {
    precondition(from.utf8.count == to.utf8.count, "a name of the same length")
    var bytes = font
    let old: [UInt8] = Array(from.utf8), new: [UInt8] = Array(to.utf8)
    func wide(_ a: [UInt8]) -> [UInt8] { a.reduce(into: []) { $0 += [0, $1] } }
    for (old, new) in [(old, new), (wide(old), wide(new))] {
        var i = 0
        while i + old.count <= bytes.count {
            if bytes[i..<i + old.count].elementsEqual(old) {
                bytes.replaceSubrange(i..<i + old.count, with: new)
                i += old.count
            } else {
                i += 1
            }
        }
    }
    return bytes
}
