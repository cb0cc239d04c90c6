import Foundation

/// The replay tool behind every fuzz target when it is built without libFuzzer (`PHOTODROP_FUZZ` unset): runs each
/// file named on the command line, or each file in a named folder, through the target's entry point, e.g. to
/// reproduce a crash or re-check a grown corpus (`swift run fuzz-boxes fuzz-work/boxes/artifacts/crash-…`).
@_spi(Fuzzing)
public enum FuzzReplay {
    /// Replays `arguments` through `entryPoint`; exits 2 without arguments and 1 for a missing path.
    public static func run(
        target: String, arguments: [String], entryPoint: (UnsafeRawBufferPointer) -> Void
    ) {
        if arguments.isEmpty {
            FileHandle.standardError.write(Data("usage: \(target) FILE_OR_FOLDER…\n".utf8))
            exit(2)
        }
        var count = 0
        for path in arguments {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("\(target): no such file: \(path)\n".utf8))
                exit(1)
            }
            let files =
                isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                    (path as NSString).appendingPathComponent($0)
                } : [path]
            for file in files {
                guard let bytes = FileManager.default.contents(atPath: file) else { continue }
                bytes.withUnsafeBytes { entryPoint($0) }
                count += 1
            }
        }
        print("\(target): replayed \(count) input(s) without a crash")
    }
}
