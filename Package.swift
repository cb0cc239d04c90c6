// swift-tools-version: 6.2
import Foundation
import PackageDescription

/// Warnings are errors in every target of ours.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// `scripts/fuzz.sh` sets PHOTODROP_FUZZ=1 so that the fuzz targets leave out their replay `main`
/// and link against libFuzzer's instead (`swift build --sanitize fuzzer`).
let fuzzing = ProcessInfo.processInfo.environment["PHOTODROP_FUZZ"] != nil
let fuzzSettings: [SwiftSetting] = strict + (fuzzing ? [.define("LIBFUZZER")] : [])

/// Where libvips's headers and GLib's are (`pkg-config --cflags vips`), for the one C file that includes them.
let vipsCompilerFlags: [String] = {
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
    pkgConfig.arguments = ["--cflags-only-I", "vips"]
    let output = Pipe()
    pkgConfig.standardOutput = output
    pkgConfig.standardError = FileHandle.nullDevice
    if (try? pkgConfig.run()) != nil {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        pkgConfig.waitUntilExit()
        let flags = String(decoding: data, as: UTF8.self).split(separator: " ").map(String.init)
            .filter { $0.hasPrefix("-I") }
        if pkgConfig.terminationStatus == 0, !flags.isEmpty { return flags }
    }
    // Debian's GLib folders, when pkg-config is missing; the build then says that vips/vips.h is missing if
    // libvips-dev is not installed.
    return ["-I/usr/include/glib-2.0", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include"]
}()

let package = Package(
    name: "photodrop",
    products: [
        .executable(name: "photodrop", targets: ["photodrop"]),
        .executable(name: "save-to-album", targets: ["SaveToAlbum"]),
        .library(name: "PhotoCatalog", targets: ["PhotoCatalog"]),
        .library(name: "MediaProbe", targets: ["MediaProbe"]),
        .library(name: "Ingest", targets: ["Ingest"]),
        .library(name: "PhotoImaging", targets: ["PhotoImaging"]),
        .library(name: "PhotoImageManager", targets: ["PhotoImageManager"]),
    ],
    targets: [
        // C libraries, each behind its own module. Nothing else lives here.
        .systemLibrary(
            name: "CMagic", pkgConfig: "libmagic",
            providers: [.apt(["libmagic-dev", "libmagic-mgc"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CBrotli", pkgConfig: "libbrotlidec",
            providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(
            name: "CXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // libvips: decoding photos for thumbnails and previews, loaded with dlopen by the render helper
        // only (see Sources/CVips/vips.c), so nothing links it. Compiled against libvips's headers.
        .target(
            name: "CVips", cSettings: [.unsafeFlags(vipsCompilerFlags)],
            linkerSettings: [.linkedLibrary("dl")]),
        // FFmpeg (libavformat, libavcodec, libswscale): poster frames of videos, loaded with dlopen by the render
        // helper only (see Sources/CFFmpeg/ffmpeg.c). Compiled against Debian's headers (libavformat-dev & co).
        .target(name: "CFFmpeg", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m")]),
        // LibRaw: camera RAW files without a usable embedded JPEG, developed from their sensor data; loaded with dlopen
        // by the render helper only (see Sources/CLibRaw/libraw.c). Compiled against Debian's libraw-dev headers.
        .target(name: "CLibRaw", linkerSettings: [.linkedLibrary("dl")]),
        // XMP sidecars read with libxml2, in C: Swift cannot import libxml2's headers beside Foundation (both bring
        // ICU's), so only this target's small API is visible to Swift.
        .target(name: "CXMP", dependencies: ["CXML2"]),

        // Linux system calls Swift's Glibc module leaves out (openat2, renameat2, copy_file_range, O_NOATIME, …),
        // compiled with _GNU_SOURCE.
        .target(name: "CLinux", cSettings: [.define("_GNU_SOURCE")]),
        // The system layer under everything else: libc, errno errors, descriptors, folders opened without following
        // links, file names that are not UTF-8, paths, SHA-256.
        .target(name: "PhotodropSystem", dependencies: ["CLinux", "CCrypto"], swiftSettings: strict),

        // Threads, bounded queues, mailboxes and service lifetimes: the generic concurrency parts the daemon is built of.
        .target(name: "PhotodropConcurrency", dependencies: ["PhotodropSystem"], swiftSettings: strict),
        // Logs (text or JSON lines, levels, journald) and metrics (Prometheus text, latency histograms).
        .target(name: "PhotodropTelemetry", dependencies: ["PhotodropSystem"], swiftSettings: strict),

        // photodrop's version, and the commit the build is made from (written by the BuildStamp plugin).
        .target(name: "BuildInfo", swiftSettings: strict, plugins: ["BuildStamp"]),
        .plugin(name: "BuildStamp", capability: .buildTool()),

        // The PhotoKit-style library over SQLite. Knows nothing of inboxes or libmagic.
        .target(
            name: "PhotoCatalog", dependencies: ["PhotodropSystem", "CSQLite", "PostgresClient"],
            swiftSettings: strict),
        // What a file is. Knows nothing of the library.
        .target(
            name: "MediaProbe", dependencies: ["PhotodropSystem", "CMagic", "CBrotli", "CXMP", "CZlib"], swiftSettings: strict),
        // Pictures of the library's photos: thumbnails and previews decoded with libvips, FFmpeg and LibRaw. Knows
        // nothing of the library or of inboxes.
        .target(name: "PhotoImaging", dependencies: ["CVips", "CFFmpeg", "CLibRaw", "PhotodropSystem"], swiftSettings: strict),
        // The render helper's protocol, both ends: photodrop asks, the helper process decodes. No codecs here.
        .target(name: "Rendering", dependencies: ["PhotodropSystem"], swiftSettings: strict),
        // The library's pictures: stored derivatives and the PhotoKit-style image manager, rendered by the helper.
        .target(
            name: "PhotoImageManager",
            dependencies: [
                "PhotoCatalog", "MediaProbe", "Rendering", "PhotodropSystem", "PhotodropTelemetry", "PhotodropConcurrency",
            ],
            swiftSettings: strict),
        // config.json: loading, checking, defaults and reloading of every key, for every command.
        .target(
            name: "PhotodropConfiguration",
            dependencies: ["PhotodropSystem", "PhotodropTelemetry", "PhotoCatalog", "MediaProbe", "Rendering"],
            swiftSettings: strict),
        // Uploads into the inbox (names, album titles, the file written beside the inbox and renamed in) and the
        // records of how each dropped file ended, which an upload's status reads: shared by serve and the daemon.
        .target(
            name: "Uploads", dependencies: ["PhotodropSystem", "PhotodropConfiguration", "PhotoCatalog"],
            swiftSettings: strict),
        // Watcher, settle, claim journal, workers, committer: the glue.
        .target(
            name: "Ingest",
            dependencies: [
                "PhotodropSystem", "PhotodropConcurrency", "PhotodropTelemetry", "PhotodropConfiguration", "Uploads",
                "PhotoCatalog", "MediaProbe", "PhotoImageManager", "Rendering",
            ],
            swiftSettings: strict),
        // libmicrohttpd: `photodrop serve`'s HTTP, loaded with dlopen by serve only (see Sources/CMicroHTTPD).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("dl")]),
        // libpq, the PostgreSQL client library, loaded with dlopen only when a PostgreSQL catalog is configured.
        .target(name: "CPostgres", linkerSettings: [.linkedLibrary("dl")]),
        // A connection to PostgreSQL: statements with parameters, transactions, LISTEN/NOTIFY, SQLSTATE errors.
        .target(name: "PostgresClient", dependencies: ["CPostgres", "PhotodropSystem"], swiftSettings: strict),
        // `photodrop serve`: the HTTP API, media with ranges, live events, auth. Knows the library, not inboxes.
        .target(
            name: "PhotoServer",
            dependencies: [
                "CMicroHTTPD", "LibraryJSON", "PhotoCatalog", "PhotoImageManager", "Rendering", "PhotodropSystem",
                "PhotodropTelemetry", "PhotodropConfiguration", "Uploads",
            ],
            // The OpenAPI document, compiled into the binary (`/api/openapi.json`; docs/openapi.json is its copy).
            resources: [.embedInCode("API/openapi.json")],
            swiftSettings: strict),
        // The JSON contract of the command line and the HTTP API (the README documents its field names): assets,
        // albums, changes, probe items, verification reports.
        .target(
            name: "LibraryJSON",
            dependencies: ["PhotodropSystem", "PhotodropTelemetry", "PhotoCatalog", "MediaProbe", "BuildInfo"],
            swiftSettings: strict),
        // The command line: a small declarative parser and one file per command.
        .target(
            name: "PhotodropCLI",
            dependencies: [
                "Ingest", "LibraryJSON", "PhotoServer", "PhotodropSystem", "PhotodropConcurrency", "PhotodropTelemetry",
                "PhotodropConfiguration", "Uploads", "PhotoCatalog", "MediaProbe", "PhotoImageManager", "Rendering",
                "BuildInfo",
            ],
            swiftSettings: strict),
        // `photodrop render-helper` is the render helper process: the only one that loads libvips, FFmpeg and LibRaw
        // to decode untrusted files, so that a decoder's crash never takes down the daemon.
        // The render helper's own process: decodes the file each request names, with PhotoImaging's decoders.
        .target(
            name: "RenderHelperProcess", dependencies: ["PhotoImaging", "Rendering", "MediaProbe", "PhotodropSystem"],
            swiftSettings: strict),
        .executableTarget(
            name: "photodrop", dependencies: ["PhotodropCLI", "PhotodropSystem", "RenderHelperProcess", "Rendering"],
            swiftSettings: strict),

        .executableTarget(
            name: "SaveToAlbum", dependencies: ["PhotoCatalog", "MediaProbe", "Ingest"], path: "examples/SaveToAlbum",
            swiftSettings: strict),
        // The code of the DocC tutorials (Documentation/*.docc), compiled from the catalogs' own resources (the
        // swift-docc-plugin and @Snippet cannot be fetched) and run by DocumentationTests: a tutorial whose code no
        // longer builds or works fails the build or the tests.
        .target(
            name: "PhotoCatalogTutorials", dependencies: ["PhotoCatalog", "MediaProbe"],
            path: "Documentation/PhotoCatalog.docc/Resources/code", swiftSettings: strict),
        .target(
            name: "ImageManagerTutorials", dependencies: ["PhotoCatalog", "PhotoImageManager", "Rendering"],
            path: "Documentation/PhotoImageManager.docc/Resources/code", swiftSettings: strict),

        // libFuzzer targets; without PHOTODROP_FUZZ they build as replay tools that run files through the
        // same entry point, so CI compiles them and they double as regression runners.
        .executableTarget(
            name: "fuzz-boxes", dependencies: ["MediaProbe"], path: "Sources/FuzzTargets/Boxes",
            swiftSettings: fuzzSettings),
        .executableTarget(
            name: "fuzz-exif", dependencies: ["MediaProbe"], path: "Sources/FuzzTargets/Exif",
            swiftSettings: fuzzSettings),
        .executableTarget(
            name: "fuzz-images", dependencies: ["MediaProbe"], path: "Sources/FuzzTargets/Images",
            swiftSettings: fuzzSettings),

        // The floors of the benchmark (scripts/bench.sh): hashing every byte on all cores, renaming every file once.
        .executableTarget(
            name: "bench-floors", dependencies: ["CCrypto"], path: "Benchmarks/Floors", swiftSettings: strict),

        // A second process for the catalog's cross-process tests (persistent history, concurrent readers).
        .executableTarget(
            name: "catalog-history", dependencies: ["PhotoCatalog", "PhotodropSystem", "PostgresClient"], path: "Tests/Support/CatalogHistory",
            swiftSettings: strict),

        // Runs a program with openat2 refused by a seccomp filter, so that tests take photodrop's fallback for real.
        .executableTarget(name: "seccomp-deny", path: "Tests/Support/SeccompDeny"),
        // glibc's heap statistics for the tests that check that something leaves no memory behind.
        .target(name: "HeapStatistics", path: "Tests/Support/HeapStatistics"),

        // What several test targets share: generated fixtures (tiny valid JPEGs), temporary folders, polling with a
        // deadline, a process runner, and the requirement trait that fails instead of skipping under CI.
        .target(name: "TestFixtures", dependencies: ["PhotodropSystem"], path: "Tests/Fixtures", swiftSettings: strict),
        // The example is a dependency so that a plain `swift test` builds it next to the test bundle.
        .testTarget(
            name: "PhotoCatalogTests", dependencies: ["PhotoCatalog", "PhotodropSystem", "PostgresClient", "TestFixtures", "catalog-history", "SaveToAlbum"],
            swiftSettings: strict),
        .testTarget(
            name: "MediaProbeTests", dependencies: ["MediaProbe", "PhotodropSystem", "TestFixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "IngestTests",
            dependencies: [
                "Ingest", "PhotodropConcurrency", "PhotodropTelemetry", "PhotodropConfiguration", "Uploads",
                "PhotoCatalog", "MediaProbe", "PhotodropSystem", "TestFixtures", "HeapStatistics",
            ],
            swiftSettings: strict),
        // The command line's parser, handlers and output, in process.
        .testTarget(
            name: "CommandLineTests", dependencies: ["PhotodropCLI", "LibraryJSON", "Ingest", "MediaProbe", "PhotodropSystem", "TestFixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "photodrop", "seccomp-deny", "catalog-history", "PhotoCatalog", "PhotodropSystem",
                "PhotoServer", "Ingest", "TestFixtures",
            ],
            swiftSettings: strict),
        // The image manager and the render helper; `photodrop` is a dependency because it is the helper.
        .testTarget(
            name: "ImageManagerTests",
            dependencies: ["PhotoImageManager", "Rendering", "PhotoCatalog", "PhotodropSystem", "TestFixtures", "photodrop"],
            swiftSettings: strict),
        // Runs the DocC tutorials' code (Documentation/*.docc/Resources/code) against real libraries.
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "PhotoCatalogTutorials", "ImageManagerTutorials", "PhotoCatalog", "PhotoImageManager", "Rendering",
                "TestFixtures", "photodrop",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PhotoImagingTests", dependencies: ["PhotoImaging", "TestFixtures"], swiftSettings: strict),
        // The HTTP layer's parts in process (the server itself is tested as a real process in EndToEndTests).
        .testTarget(
            name: "PhotoServerTests", dependencies: ["PhotoServer", "PhotoCatalog", "TestFixtures"], swiftSettings: strict),
        .testTarget(
            name: "PostgresClientTests", dependencies: ["PostgresClient", "TestFixtures"], swiftSettings: strict),
        .testTarget(
            name: "PhotodropSystemTests", dependencies: ["PhotodropSystem", "CLinux", "TestFixtures"], swiftSettings: strict),
    ]
)
