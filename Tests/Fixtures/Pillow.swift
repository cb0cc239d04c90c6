import Foundation

/// Pillow (Python's imaging library, through python3) as a second decoder and encoder beside libvips: it makes test
/// photos and reads results back, so that tests check the pictures themselves.
public enum Pillow {
    public static let isAvailable: Bool = {
        (try? ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import PIL.Image, PIL.WebPImagePlugin"]))?.status == 0
    }()

    public struct Seen: Sendable {
        public let size: (Int, Int)
        /// Mean colours of an 8 × 8 grid of cells, row by row.
        public let cells: [(Double, Double, Double)]

        /// The mean over the cells inside the fractional rectangle.
        public func mean(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> (Double, Double, Double) {
            var sums = (0.0, 0.0, 0.0)
            var count = 0.0
            for row in 0..<8 {
                for column in 0..<8 {
                    let cx = (Double(column) + 0.5) / 8, cy = (Double(row) + 0.5) / 8
                    guard cx >= x && cx <= x + width && cy >= y && cy <= y + height else { continue }
                    let cell = cells[row * 8 + column]
                    sums = (sums.0 + cell.0, sums.1 + cell.1, sums.2 + cell.2)
                    count += 1
                }
            }
            return count == 0 ? (-1, -1, -1) : (sums.0 / count, sums.1 / count, sums.2 / count)
        }
    }

    /// ``run(_:in:)`` for async code: awaits python3 without holding one of the concurrency threads.
    public static func make(_ body: String, in folder: TemporaryFolder) async throws {
        try check(try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), arguments(body, folder)))
    }

    public static func run(_ body: String, in folder: TemporaryFolder) throws {
        try check(try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/env"), arguments(body, folder)))
    }

    /// python3 running `body` with Pillow imported and `out(name)` naming a file in `folder`.
    private static func arguments(_ body: String, _ folder: TemporaryFolder) -> [String] {
        let script = "import sys, os\nfrom PIL import Image\ndef out(name): return os.path.join(sys.argv[1], name)\n" + body
        return ["python3", "-c", script, folder.path]
    }

    private static func check(_ result: ProcessOutput) throws {
        guard result.status == 0 else { throw PillowFailure(description: "\(result)") }
    }

    /// Writes `image` to the folder and has Pillow read it: its size and the mean colour of an 8 × 8 grid of cells.
    public static func read(_ bytes: Data, as name: String, in folder: TemporaryFolder) throws -> Seen {
        let path = folder.url(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        let script = """
            import sys
            from PIL import Image, ImageStat
            img = Image.open(sys.argv[1]).convert('RGB')
            w, h = img.size
            print(w, h)
            for r in range(8):
                for c in range(8):
                    box = (c * w // 8, r * h // 8, (c + 1) * w // 8, (r + 1) * h // 8)
                    print(*ImageStat.Stat(img.crop(box)).mean)
            """
        let result = try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, path])
        guard result.status == 0 else { throw PillowFailure(description: "\(result)") }
        let rows = result.lines.map { $0.split(separator: " ").compactMap { Double($0) } }
        guard rows.count == 65, rows[0].count == 2 else { throw PillowFailure(description: "\(result)") }
        return Seen(size: (Int(rows[0][0]), Int(rows[0][1])), cells: rows.dropFirst().map { ($0[0], $0[1], $0[2]) })
    }

    public struct PillowFailure: Error, CustomStringConvertible { public let description: String }
}
