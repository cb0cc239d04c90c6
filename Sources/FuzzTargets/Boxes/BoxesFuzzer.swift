import MediaProbe

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    0
}

#if !LIBFUZZER
@main
struct ReplayMain {
    static func main() {}
}
#endif
