import SplashFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzTarget.psplashFIFO.fuzz(data, size) }
