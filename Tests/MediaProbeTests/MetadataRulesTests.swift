import Testing

@testable import MediaProbe

@Suite("Metadata rules", .timeLimit(.minutes(3)))
struct MetadataRulesTests {
    @Test(
        "the displayed size swaps width and height for EXIF orientations 5 to 8 only",
        arguments: [(nil, false), (1, false), (2, false), (3, false), (4, false), (5, true), (6, true), (7, true), (8, true)]
            as [(Int?, Bool)])
    func displayedSize(_ orientation: Int?, _ turned: Bool) throws {
        var metadata = MediaMetadata()
        metadata.pixelWidth = 4032
        metadata.pixelHeight = 3024
        metadata.orientation = orientation
        let size = try #require(metadata.displayedPixelSize)
        #expect(size.width == (turned ? 3024 : 4032) && size.height == (turned ? 4032 : 3024))
    }

    @Test func noSizeOrANegativeOneHasNoDisplayedSize() {
        var metadata = MediaMetadata()
        metadata.pixelWidth = 10
        #expect(metadata.displayedPixelSize == nil)
        metadata.pixelHeight = -1
        #expect(metadata.displayedPixelSize == nil)
    }
}
