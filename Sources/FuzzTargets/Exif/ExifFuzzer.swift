import Foundation
@_spi(Fuzzing) import MediaProbe

/// libFuzzer entry point for the EXIF/TIFF directory reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    FuzzEntryPoints.exif(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !LIBFUZZER
    /// Without libFuzzer (`PHOTODROP_FUZZ` unset) this target is a replay tool: it runs each file named on the command
    /// line (or each file in a named folder) through the same entry point, e.g. to reproduce a crash or re-check a
    /// corpus: `swift run fuzz-exif fuzz-work/exif/artifacts/crash-…`.
    @main
    struct ReplayMain {
        static func main() {
            let paths = CommandLine.arguments.dropFirst()
            if paths.isEmpty {
                FileHandle.standardError.write(Data("usage: fuzz-exif FILE_OR_FOLDER…\n".utf8))
                exit(2)
            }
            var count = 0
            for path in paths {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                    FileHandle.standardError.write(Data("fuzz-exif: no such file: \(path)\n".utf8))
                    exit(1)
                }
                let files =
                    isFolder.boolValue
                    ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                        (path as NSString).appendingPathComponent($0)
                    } : [path]
                for file in files {
                    guard let bytes = FileManager.default.contents(atPath: file) else { continue }
                    bytes.withUnsafeBytes { raw in
                        _ = fuzzTestOneInput(raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
                    }
                    count += 1
                }
            }
            print("fuzz-exif: replayed \(count) input(s) without a crash")
        }
    }
#endif
