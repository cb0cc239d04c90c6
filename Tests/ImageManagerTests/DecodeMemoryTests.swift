import Foundation
import PhotoCatalog
import PhotoImageManager
import Rendering
import Synchronization
import TestFixtures
import Testing

/// Real render helpers decoding photos whose decode holds hundreds of megabytes (progressive JPEGs of 6000 × 6000:
/// libjpeg keeps every coefficient of the image, whatever it is shrunk to), measured by what the kernel says the
/// helpers used (`VmRSS`, `VmHWM`), not by the estimates.
@Suite(
    "Decode memory: the helpers stay within the budget; an idle helper gives memory back", .timeLimit(.minutes(5)),
    .serialized, .requires(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)"))
struct DecodeMemoryTests {
    static let mib: Int64 = 1 << 20

    /// The marker in the environment of this suite's helpers, which tells them from the helpers of tests that run
    /// at the same time.
    static let markerValue = UUID().uuidString
    static let marker = "PHOTODROP_TEST_MEMORY_POOL=\(markerValue)"

    /// A pool of `size` helpers marked as this suite's, within `budget`.
    static func pool(size: Int, budget: DecodeBudget) -> RenderPool {
        RenderPool(size: size, environment: ["PHOTODROP_TEST_MEMORY_POOL": markerValue], budget: budget)
    }

    /// The render helpers this suite started: children of this process running `render-helper` with the marker.
    static func helperProcesses() -> [Int32] {
        let me = getpid()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == me,
                let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
            else { return false }
            guard command.contains("render-helper"),
                let environment = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
            else { return false }
            return environment.split(separator: 0).contains { Data($0) == Data(marker.utf8) }
        }
    }

    /// A `/proc/<pid>/status` field in bytes (`VmRSS`, `VmHWM`).
    static func status(_ pid: Int32, _ field: String) -> Int64 {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return (Int64(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return 0
    }

    /// ``measureBlocking(_:_:)`` on a thread of its own, so that the test runner's few threads stay free for the
    /// other tests while the helpers decode.
    static func measure(_ maker: DerivativeMaker, _ sources: [DerivativeSource]) async throws
        -> (outcomes: [DerivativeMaker.Outcome], largestSum: Int64, peaks: [Int64])
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try measureBlocking(maker, sources) }) }.start()
        }
    }

    /// Makes the derivatives of `sources` while sampling the helpers' resident memory every 10 ms: the largest sum
    /// seen, and each helper's own peak (`VmHWM`) at the end.
    static func measureBlocking(_ maker: DerivativeMaker, _ sources: [DerivativeSource]) throws
        -> (outcomes: [DerivativeMaker.Outcome], largestSum: Int64, peaks: [Int64])
    {
        let largest = Atomic<Int64>(0)
        let done = Atomic<Bool>(false)
        let sampler = Thread {
            while !done.load(ordering: .sequentiallyConsistent) {
                let sum = helperProcesses().reduce(Int64(0)) { $0 + status($1, "VmRSS") }
                if sum > largest.load(ordering: .relaxed) { largest.store(sum, ordering: .relaxed) }
                usleep(10_000)
            }
        }
        sampler.start()
        let outcomes = try maker.makeAndWait(sources)
        let peaks = helperProcesses().map { status($0, "VmHWM") }
        done.store(true, ordering: .sequentiallyConsistent)
        return (outcomes, largest.load(ordering: .relaxed), peaks)
    }

    @Test("three 6000 × 6000 progressive JPEGs on three helpers: one at a time within 400 MiB, all at once without")
    func budgetHoldsTheHelpers() async throws {
        let folder = try TemporaryFolder("decode-memory")
        try await Pillow.make(
            """
            base = Image.linear_gradient('L').resize((6000, 6000)).convert('RGB')
            for i in range(3):
                base.rotate(90 * i).save(out('big%d.jpg' % i), quality=85, progressive=True, subsampling=0)
            """, in: folder)
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        let identifiers = Locked<[String]>([])
        try await library.performChanges {
            for i in 0..<3 {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(with: .photo, fileURL: URL(fileURLWithPath: folder.url("big\(i).jpg")), options: nil)
                request.pixelWidth = 6000
                request.pixelHeight = 6000
                identifiers.value.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        let sources = try library.derivativeSources(missingFor: identifiers.value)
        #expect(sources.count == 3)

        // Within 400 MiB (a large lane of 300 MiB): each decode (about 240 MiB) runs alone.
        let budget = DecodeBudget(totalBytes: 400 * Self.mib)
        let pool = Self.pool(size: 3, budget: budget)
        let bounded = try await Self.measure(DerivativeMaker(library: library, pool: pool), sources)
        #expect(bounded.outcomes == [.made, .made, .made], "\(bounded.outcomes)")
        #expect(budget.waitedTotal == 2, "two of the three waited for memory")
        let single = try #require(bounded.peaks.max())
        #expect(single > 200 * Self.mib, "one decode holds the image's coefficients: \(single >> 20) MiB")
        #expect(
            bounded.largestSum < single + 150 * Self.mib,
            "the helpers together held \(bounded.largestSum >> 20) MiB, one decode's peak is \(single >> 20) MiB")

        // An idle helper gives memory back, also after a HEIC (libheif decodes on threads of its own, whose freed
        // memory glibc would otherwise keep in their arenas).
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc") {
            try await Pillow.make(
                "Image.linear_gradient('L').resize((4000, 4000)).convert('RGB').save(out('big.png'))", in: folder)
            let encoded = try await ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/heif-enc"), ["-q", "30", "-o", folder.url("big.heic"), folder.url("big.png")])
            #expect(encoded.status == 0, "\(encoded)")
            let heic = Locked<String?>(nil)
            try await library.performChanges {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(with: .photo, fileURL: URL(fileURLWithPath: folder.url("big.heic")), options: nil)
                heic.value = request.placeholderForCreatedAsset?.localIdentifier
            }
            let heicSources = try library.derivativeSources(missingFor: [try #require(heic.value)])
            #expect(try await Self.measure(DerivativeMaker(library: library, pool: pool), heicSources).outcomes == [.made])
        } else {
            Issue.record("heif-enc is missing (apt-get install libheif-examples)")
        }
        var idle: [Int64] = []
        for _ in 0..<200 {
            idle = Self.helperProcesses().map { Self.status($0, "VmRSS") }
            if idle.allSatisfy({ $0 < 100 * Self.mib }) { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!idle.isEmpty && idle.allSatisfy { $0 < 100 * Self.mib }, "idle helpers hold \(idle.map { $0 >> 20 }) MiB")
        pool.stop()

        // The same decodes with room for all three (the control): they overlap, and the sum is far above one.
        let roomy = Self.pool(size: 3, budget: DecodeBudget(totalBytes: 64 << 30))
        defer { roomy.stop() }
        let unbounded = try await Self.measure(DerivativeMaker(library: library, pool: roomy), sources)
        #expect(unbounded.outcomes == [.made, .made, .made])
        #expect(
            unbounded.largestSum > single + 150 * Self.mib,
            "without the budget the helpers overlapped: \(unbounded.largestSum >> 20) MiB at once")
    }
}
