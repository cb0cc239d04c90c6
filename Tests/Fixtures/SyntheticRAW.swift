import Foundation

/// Camera RAW files in miniature, as their structure goes: a little-endian TIFF whose first directory holds a JPEG
/// preview (as a CR2's IFD0 does, with the orientation), a sub-IFD with lossless-JPEG "sensor data" (as a DNG's), and
/// a second directory whose `JPEGInterchangeFormat` points at a small thumbnail. Enough for the embedded-preview
/// locator and the render helper; no RAW decoder could read the sensor data.
public enum SyntheticRAW {
    /// - Parameters:
    ///   - preview: the large JPEG (in IFD0's strip).
    ///   - thumbnail: the small JPEG (IFD1's `JPEGInterchangeFormat`).
    ///   - orientation: IFD0's EXIF orientation.
    public static func tiff(preview: Data, thumbnail: Data, width: Int, height: Int, orientation: Int) -> Data {
        // The "sensor data": a lossless JPEG (SOF3) frame header, which must never be taken for a preview.
        let lossless = Data([0xFF, 0xD8, 0xFF, 0xC3, 0x00, 0x0B, 0x0C, 0x00, 0x10, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00])
            + Data(repeating: 0x55, count: 200)
        // Layout: header 8 | IFD0 (8 entries) | sub-IFD (4 entries) | IFD1 (2 entries) | data.
        let ifd0 = 8
        let ifd0Size = 2 + 8 * 12 + 4
        let subIFD = ifd0 + ifd0Size
        let subSize = 2 + 4 * 12 + 4
        let ifd1 = subIFD + subSize
        let ifd1Size = 2 + 2 * 12 + 4
        let previewAt = ifd1 + ifd1Size
        let losslessAt = previewAt + preview.count
        let thumbnailAt = losslessAt + lossless.count
        var bytes = Data("II".utf8) + le16(42) + le32(ifd0)
        bytes += directory(
            [
                (0x00FE, 4, 0), (0x0100, 4, width), (0x0101, 4, height), (0x0103, 3, 6), (0x0111, 4, previewAt),
                (0x0112, 3, orientation), (0x0117, 4, preview.count), (0x014A, 4, subIFD),
            ], next: ifd1)
        bytes += directory([(0x0103, 3, 7), (0x0111, 4, losslessAt), (0x0117, 4, lossless.count), (0x00FE, 4, 0)], next: 0)
        bytes += directory([(0x0201, 4, thumbnailAt), (0x0202, 4, thumbnail.count)], next: 0)
        return bytes + preview + lossless + thumbnail
    }

    private static func directory(_ entries: [(tag: Int, type: Int, value: Int)], next: Int) -> Data {
        var data = le16(entries.count)
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            data += le16(entry.tag) + le16(entry.type) + le32(1)
            data += entry.type == 3 ? le16(entry.value) + le16(0) : le32(entry.value)
        }
        return data + le32(next)
    }

    private static func le16(_ value: Int) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]) }
    private static func le32(_ value: Int) -> Data { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
}
