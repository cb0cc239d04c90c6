@_spi(Fuzzing) import MediaProbe

/// libFuzzer entry point for the EXIF/TIFF directory reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    FuzzEntryPoints.exif(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !LIBFUZZER
    /// Without libFuzzer this target is a replay tool (see `FuzzReplay`).
    @main
    struct ReplayMain {
        static func main() {
            FuzzReplay.run(target: "fuzz-exif", arguments: Array(CommandLine.arguments.dropFirst())) {
                FuzzEntryPoints.exif($0)
            }
        }
    }
#endif
