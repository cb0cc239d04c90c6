import FoundationEssentials
import PhotodropSystem

/// The replay tool behind every fuzz target when it is built without libFuzzer (`PHOTODROP_FUZZ` unset): runs each
/// file named on the command line, or each file in a named folder, through the target's entry point, e.g. to
/// reproduce a crash or re-check a grown corpus (`swift run fuzz-boxes fuzz-work/boxes/artifacts/crash-…`).
@_spi(Fuzzing)
public enum FuzzReplay {
    /// Replays `arguments` through `entryPoint`; exits 2 without arguments and 1 for a missing path.
    public static func run(
        target: String, arguments: [String], entryPoint: (UnsafeRawBufferPointer) -> Void
    ) {
        func fail(_ message: String, status: Int32) -> Never {
            try? FileSystem.writeAll(message, to: FileDescriptor.standardError, path: nil)
            SystemProcess.exit(status)
        }
        if arguments.isEmpty { fail("usage: \(target) FILE_OR_FOLDER…\n", status: 2) }
        var count = 0
        for path in arguments {
            guard let info = try? FileSystem.status(atPath: path) else {
                fail("\(target): no such file: \(path)\n", status: 1)
            }
            let files =
                info.isDirectory
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                    Path.join(path, $0)
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
