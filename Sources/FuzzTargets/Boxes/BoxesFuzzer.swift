@_spi(Fuzzing) import MediaProbe

/// libFuzzer entry point for the ISO-BMFF box walker (movies, fragments, HEIF items, CR3).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    FuzzEntryPoints.boxes(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !LIBFUZZER
    /// Without libFuzzer this target is a replay tool (see `FuzzReplay`).
    @main
    struct ReplayMain {
        static func main() {
            FuzzReplay.run(target: "fuzz-boxes", arguments: Array(CommandLine.arguments.dropFirst())) {
                FuzzEntryPoints.boxes($0)
            }
        }
    }
#endif
