@testable import SplashScene
import Testing

/// The first-frame cache's files: a hit, a miss, the theme changed, the output's size changed, a
/// file torn by a power cut.
@Suite struct FirstFrameCacheTests {
    static let key = FirstFrameCache.Key(fingerprint: FirstFrameCache.fingerprint([Array("theme".utf8)]), width: 4, height: 3, turn: 0)
    static let pixels: [UInt8] = (0..<48).map { UInt8($0 * 5) }

    @Test func aFileForTheSameThemeSizeAndTurnIsAHit() throws {
        let file = FirstFrameCache.encode(Self.key, pixels: Self.pixels)
        #expect(file.count == FirstFrameCache.headerLength + 48)
        #expect(Array(try FirstFrameCache.decode(file, for: Self.key).get()) == Self.pixels)
    }

    @Test func noFileIsAMiss() {
        #expect(FirstFrameCache.decode(nil, for: Self.key) == .failure(.absent))
    }

    @Test func aFileOfAnotherThemeIsAMiss() {
        let file = FirstFrameCache.encode(Self.key, pixels: Self.pixels)
        var changed = Self.key
        changed.fingerprint = FirstFrameCache.fingerprint([Array("theme, its logo changed".utf8)])
        #expect(FirstFrameCache.decode(file, for: changed) == .failure(.themeChanged))
    }

    @Test func anOutputOfAnotherSizeOrTurnHasAnotherFileAndThisOneIsAMissForIt() {
        let file = FirstFrameCache.encode(Self.key, pixels: Self.pixels)
        for (width, height, turn) in [(3, 4, 0), (4, 3, 90), (8, 6, 0)] {
            let other = FirstFrameCache.Key(fingerprint: Self.key.fingerprint, width: width, height: height, turn: turn)
            #expect(other.fileName != Self.key.fileName)
            #expect(FirstFrameCache.decode(file, for: other) == .failure(.sizeChanged))
        }
        #expect(Self.key.fileName == "first-frame-4x3-0.raw")
    }

    @Test func aTornOrDamagedFileIsAMissNotAPicture() {
        let file = FirstFrameCache.encode(Self.key, pixels: Self.pixels)
        guard case .failure(.corrupt) = FirstFrameCache.decode(Array(file.dropLast(5)), for: Self.key) else {
            Issue.record("a file cut short was taken")
            return
        }
        var flipped = file
        flipped[FirstFrameCache.headerLength + 7] ^= 0x10
        #expect(FirstFrameCache.decode(flipped, for: Self.key) == .failure(.corrupt("its checksum does not match")))
        // The reserved field is 0 (found by the first-frame fuzz target: a file that was not
        // what encode writes was taken).
        var reserved = file
        reserved[28] = 0x5C
        #expect(FirstFrameCache.decode(reserved, for: Self.key) == .failure(.corrupt("its reserved field is not 0")))
        guard case .failure(.corrupt) = FirstFrameCache.decode(Array("not a cache file at all, but long enough to have a header".utf8), for: Self.key)
        else {
            Issue.record("a file of another kind was taken")
            return
        }
    }

    @Test func theFingerprintTellsWhereOnePartEndsAndChangesWithAnyByte() {
        let a = FirstFrameCache.fingerprint([Array("ab".utf8), Array("c".utf8)])
        #expect(a != FirstFrameCache.fingerprint([Array("a".utf8), Array("bc".utf8)]))
        #expect(a != FirstFrameCache.fingerprint([Array("ab".utf8), Array("d".utf8)]))
        #expect(a == FirstFrameCache.fingerprint([Array("ab".utf8), Array("c".utf8)]))
    }

    @Test func theChecksumReadsEightBytesAStepAndTheTailAByteAStep() {
        // Word-wise over the first 8, then bytes: the same value for the same bytes, contiguous or not.
        let bytes: [UInt8] = Array(0..<13)
        #expect(FirstFrameCache.fnv(bytes, FirstFrameCache.fnvOffset) == FirstFrameCache.fnv(bytes[...], FirstFrameCache.fnvOffset))
        #expect(FirstFrameCache.fnv(bytes, FirstFrameCache.fnvOffset) != FirstFrameCache.fnv(Array(bytes.dropLast()), FirstFrameCache.fnvOffset))
    }
}
