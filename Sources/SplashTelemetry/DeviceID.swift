/// The stable device id exported as `host.id`: derived from the machine id, never the id itself
/// (systemd asks that machine-id not be exposed as it is: machine-id(5)).
public enum DeviceID {
    /// 128 bits of two FNV-1a hashes of `splashd:` + the machine id, as 32 hex digits.
    public static func derive(fromMachineID bytes: some Collection<UInt8>) -> String {
        let trimmed = Array(bytes).filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: " ") }
        func fnv(_ salt: String) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in Array(salt.utf8) + trimmed {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return hash
        }
        func hex(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return hex(fnv("splashd:a:")) + hex(fnv("splashd:b:"))
    }
}
