import Glibc
import SplashFuzz

/// The target this process fuzzes: the name it was called by, less `fuzz-` (`fuzz-toml` is a link
/// to this executable). One executable for every target: one link instead of one per target,
/// which was most of the fuzz build's time.
nonisolated(unsafe) private var target: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let called = argv.pointee?.pointee.map { String(cString: $0) } ?? ""
    let name = String(called.split(separator: "/").last ?? "")
    guard name.hasPrefix("fuzz-"), let chosen = FuzzTarget(rawValue: String(name.dropFirst("fuzz-".count))) else {
        let names = FuzzTarget.allCases.map { "fuzz-\($0.rawValue)" }.joined(separator: " ")
        let message = "fuzz: called as \"\(called)\": call it by a target's name (\(names))\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(64)
    }
    target = chosen
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { target?.fuzz(data, size) ?? 0 }
