import CCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The floors the benchmark compares photodrop against, measured on the same files in the same run:
///
/// - `hash DIR [--threads N]`: open, read every byte and SHA-256 it (OpenSSL EVP), close — for every file, on N
///   threads (default: one per core). Nothing photodrop does per file can be cheaper than this.
/// - `rename DIR`: rename every file once (to `NAME.floor` in its folder), timed; then back, untimed.
///
/// Paths are collected before the clock starts. Prints one JSON object: `files`, `bytes`, `seconds`.
@main
struct BenchFloors {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: bench-floors hash|rename DIR [--threads N]\n".utf8))
            exit(2)
        }
        let mode = arguments.removeFirst()
        let folder = arguments.removeFirst()
        var threads = ProcessInfo.processInfo.activeProcessorCount
        if let index = arguments.firstIndex(of: "--threads"), index + 1 < arguments.count,
            let value = Int(arguments[index + 1]), value > 0
        {
            threads = value
        }
        let paths = regularFiles(under: folder)
        switch mode {
        case "hash":
            report(measureHashing(paths, threads: threads))
        case "rename":
            report(measureRenaming(paths))
        default:
            FileHandle.standardError.write(Data("bench-floors: unknown mode '\(mode)' (hash or rename)\n".utf8))
            exit(2)
        }
    }

    struct Measurement {
        var files: Int
        var bytes: Int64
        var seconds: Double
    }

    static func report(_ measurement: Measurement) {
        print(
            "{\"files\": \(measurement.files), \"bytes\": \(measurement.bytes), "
                + "\"seconds\": \(String(format: "%.6f", measurement.seconds))}")
    }

    static func regularFiles(under folder: String) -> [String] {
        var result: [String] = []
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return result }
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") || name == "STAMP" { continue }
            if (enumerator.fileAttributes?[.type] as? FileAttributeType) == .typeRegular {
                result.append(folder + "/" + relative)
            }
        }
        return result.sorted()
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// N threads take files from a shared counter; each reads in 1 MiB chunks into its own buffer.
    static func measureHashing(_ paths: [String], threads: Int) -> Measurement {
        let next = Atomic<Int>(0)
        let total = Atomic<Int64>(0)
        let start = now()
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let chunk = 1 << 20
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 64)
            defer { buffer.deallocate() }
            guard let context = EVP_MD_CTX_new() else { return }
            defer { EVP_MD_CTX_free(context) }
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var bytes: Int64 = 0
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if index >= paths.count { break }
                let fd = open(paths[index], O_RDONLY | O_CLOEXEC)
                if fd < 0 { continue }
                EVP_DigestInit_ex(context, EVP_sha256(), nil)
                while true {
                    let count = read(fd, buffer, chunk)
                    if count <= 0 { break }
                    EVP_DigestUpdate(context, buffer, count)
                    bytes += Int64(count)
                }
                var length: UInt32 = 0
                EVP_DigestFinal_ex(context, &digest, &length)
                close(fd)
            }
            total.wrappingAdd(bytes, ordering: .relaxed)
        }
        let seconds = now() - start
        return Measurement(files: paths.count, bytes: total.load(ordering: .relaxed), seconds: seconds)
    }

    static func measureRenaming(_ paths: [String]) -> Measurement {
        var bytes: Int64 = 0
        var info = stat()
        for path in paths where stat(path, &info) == 0 { bytes += Int64(info.st_size) }
        let start = now()
        for path in paths { _ = rename(path, path + ".floor") }
        let seconds = now() - start
        for path in paths { _ = rename(path + ".floor", path) }
        return Measurement(files: paths.count, bytes: bytes, seconds: seconds)
    }
}
