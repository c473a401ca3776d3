import Glibc
import SplashDraw
import SplashKMS
import SplashSupport

/// The first-frame cache's files (`FirstFrameCache`) in a directory: read at start, written once
/// the splash stands still (crash-safe: a power cut leaves the old file or the new one).
struct FrameCacheStore {
    let directory: String
    /// The theme's, as `FirstFrameCache.fingerprint` makes it.
    let fingerprint: UInt64

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

    /// Writes `image` (an output's still view, turned `turn` degrees) unless the file already
    /// holds it; whether it wrote.
    func store(_ image: SplashImage, turn: Int) throws(AtomicFile.WriteError) -> Bool {
        let key = key(width: image.width, height: image.height, turn: turn)
        if case .success(let cached) = load(width: image.width, height: image.height, turn: turn), image.hasPixels(cached) { return false }
        try AtomicFile.write(FirstFrameCache.encode(key, pixels: image.packedPixels()), to: path(key))
        return true
    }
}
