import Glibc
import SplashDraw
import SplashKMS
import SplashSupport
import SplashScene

/// The first-frame cache's files (`FirstFrameCache`) in a directory: read at start, written once
/// the splash stands still (crash-safe: a power cut leaves the old file or the new one).
struct FrameCacheStore {
    let directory: String
    /// The theme's, as `FirstFrameCache.fingerprint` makes it.
    let fingerprint: UInt64
    /// For the index (`FirstFrameIndex`): the hash of the renderer's arguments, the theme's files
    /// as they were read, and a file whose coming would change the theme.
    var arguments: UInt64 = 0
    var sources: [FirstFrameIndex.Source] = []
    var absent: [String] = []

    private func key(width: Int, height: Int, turn: Int) -> FirstFrameCache.Key {
        .init(fingerprint: fingerprint, width: width, height: height, turn: turn)
    }

    private func path(_ key: FirstFrameCache.Key) -> String { directory + "/" + key.fileName }

    /// The cached still view for an output of `width` × `height` turned `turn` degrees.
    func load(width: Int, height: Int, turn: Int) -> Result<ArraySlice<UInt8>, FirstFrameCache.Miss> {
        let key = key(width: width, height: height, turn: turn)
        guard access(path(key), F_OK) == 0 else { return .failure(.absent) }
        do {
            // Bounded (a picture of 8192 × 8192 at most), a regular file only, and no link followed:
            // the cache directory holds what the renderer wrote, nothing it points at.
            let file = try FileSystem.readFile(path(key), limit: FirstFrameCache.maximumLength, followLinks: false)
            return FirstFrameCache.decode(file, for: key)
        } catch {
            return .failure(.corrupt("\(error)"))
        }
    }

    /// One output, for the index.
    struct IndexedOutput {
        var name: String
        var width: Int
        var height: Int
        var turn: Int
    }

    /// Writes the index `splashd-kms-first-frame` reads, unless it already says the same.
    func storeIndex(_ outputs: [IndexedOutput]) throws(AtomicFile.WriteError) {
        let path = directory + "/" + FirstFrameIndex.fileName
        guard let text = FirstFrameIndex.encode(
            arguments: arguments,
            outputs: outputs.map { .init(name: $0.name, key: key(width: $0.width, height: $0.height, turn: $0.turn)) },
            files: sources, absent: absent)
        else { return }
        if let old = try? FileSystem.readFile(path, limit: 1 << 16, followLinks: false), old == Array(text.utf8) { return }
        try AtomicFile.write(Array(text.utf8), to: path)
    }

    /// Writes `image` (an output's still view, turned `turn` degrees) unless the file already
    /// holds it; whether it wrote.
    func store(_ image: SplashImage, turn: Int) throws(AtomicFile.WriteError) -> Bool {
        let key = key(width: image.width, height: image.height, turn: turn)
        if case .success(let cached) = load(width: image.width, height: image.height, turn: turn), image.hasPixels(cached) { return false }
        try AtomicFile.write(FirstFrameCache.encode(key, pixels: image.packedPixels()), to: path(key))
        return true
    }
}
