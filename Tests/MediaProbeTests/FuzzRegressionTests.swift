import Foundation
import TestFixtures
import Testing

@_spi(Fuzzing) import MediaProbe

/// Every input under `Tests/FuzzRegressions/<target>/` (crashes and hangs `scripts/fuzz.sh` found, copied there by
/// it, and hand-made hostile structures) is run through the same entry point as its libFuzzer target, so that a
/// parser change that brings one back fails `swift test`, not a fuzz run weeks later.
@Suite("Fuzz regressions", .timeLimit(.minutes(3)))
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: packageRootPath).appendingPathComponent("Tests/FuzzRegressions")

    static func entryPoint(_ target: String) -> ((UnsafeRawBufferPointer) -> Void)? {
        switch target {
        case "boxes": return FuzzEntryPoints.boxes
        case "exif": return FuzzEntryPoints.exif
        case "images": return FuzzEntryPoints.images
        default: return nil
        }
    }

    @Test("each input runs through its target's entry point and returns", arguments: ["boxes", "exif", "images"])
    func replay(_ target: String) throws {
        let run = try #require(Self.entryPoint(target))
        let inputs = try FileManager.default.contentsOfDirectory(atPath: Self.folder.appendingPathComponent(target).path)
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(!inputs.isEmpty, "no regression inputs for \(target): the replay would test nothing")
        for name in inputs {
            let data = try Data(contentsOf: Self.folder.appendingPathComponent(target).appendingPathComponent(name))
            // A hang is caught by the suite's time limit.
            data.withUnsafeBytes { run($0) }
        }
    }

    /// The corpus libFuzzer grew in a run of each target (`scripts/fuzz.sh TARGET SECONDS` with `KEEP_CORPUS=1`, seeded
    /// from the hand-made inputs above, never from the shared media corpus), merged to the inputs that reach new code:
    /// every one of them is replayed, so that a parser change that makes any of them crash or hang fails here.
    static let corpusFolder = URL(fileURLWithPath: packageRootPath).appendingPathComponent("Tests/FuzzCorpus")

    @Test("the corpus of a fuzzer run replays through its target's entry point", arguments: ["boxes", "exif", "images"])
    func corpus(_ target: String) throws {
        let run = try #require(Self.entryPoint(target))
        let folder = Self.corpusFolder.appendingPathComponent(target)
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        #expect(inputs.count >= 50, "\(target): \(inputs.count) inputs; a fuzz run's merged corpus has hundreds")
        for name in inputs.sorted() {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            data.withUnsafeBytes { run($0) }
        }
    }
}
