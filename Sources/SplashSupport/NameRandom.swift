import CLinuxShims
#if canImport(Glibc)
import Glibc
#endif

/// Random numbers for names that must be unpredictable, not secret (a temporary's, a lock's),
/// which never wait: `getrandom(GRND_INSECURE)`. The standard library's generator asks the kernel
/// with flags 0, which early in boot waits until the kernel has random numbers of its own: the
/// renderer the initramfs starts writes its PID through `AtomicFile` and waited a second there on
/// the emulated power-on machine (docs/power-on.md). A kernel without GRND_INSECURE (before 5.6)
/// is asked with GRND_NONBLOCK; one with no random numbers yet gives the clock's nanoseconds mixed
/// with the process's ID and a count, which `O_EXCL` guards as it guards a drawn name.
public struct NameRandom: RandomNumberGenerator, Sendable {
    public init() {}

    /// A count mixed into the fallback, so two names drawn in one nanosecond differ.
    private var drawn: UInt64 = 0

    public mutating func next() -> UInt64 {
        var value: UInt64 = 0
        if splashd_random_nowait(&value, MemoryLayout<UInt64>.size) == 0 { return value }
        drawn &+= 1
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        // SplitMix64's finaliser over the three.
        var mixed = UInt64(bitPattern: Int64(now.tv_nsec)) &+ UInt64(bitPattern: Int64(now.tv_sec)) &* 1_000_000_007
            &+ UInt64(UInt32(bitPattern: getpid())) << 32 &+ drawn &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
