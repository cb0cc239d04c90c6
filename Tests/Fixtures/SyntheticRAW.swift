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

    /// A real, developable DNG of sensor data only (no preview): an uncompressed 16-bit Bayer mosaic (RGGB) of a scene
    /// whose left half is `left` and right half `right` (linear sRGB, 0…1), with a colour matrix that makes the
    /// camera's colours sRGB's, neutral white balance, and the EXIF `orientation`. With `thumbnail`, IFD0 is that
    /// small JPEG (as older cameras write it) and the mosaic moves to a sub-IFD.
    public static func dng(
        width: Int, height: Int, left: (Double, Double, Double), right: (Double, Double, Double), orientation: Int,
        thumbnail: Data? = nil
    ) -> Data {
        var mosaic = Data(capacity: width * height * 2)
        for y in 0..<height {
            for x in 0..<width {
                let colour = x < width / 2 ? left : right
                let value =
                    switch (y & 1, x & 1) {
                    case (0, 0): colour.0
                    case (1, 1): colour.2
                    default: colour.1
                    }
                mosaic += le16(Int((min(1, max(0, value)) * 65535).rounded()))
            }
        }
        // XYZ (D65) to linear sRGB: the camera "sees" sRGB.
        let matrix = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
        var raw: [(Int, Int, Payload)] = [
            (0x00FE, 4, .ints([0])), (0x0100, 4, .ints([width])), (0x0101, 4, .ints([height])),
            (0x0102, 3, .ints([16])), (0x0103, 3, .ints([1])), (0x0106, 3, .ints([32803])),
            (0x0111, 4, .mosaic), (0x0115, 3, .ints([1])), (0x0116, 4, .ints([height])),
            (0x0117, 4, .ints([mosaic.count])), (0x011C, 3, .ints([1])), (0x828D, 3, .ints([2, 2])),
            (0x828E, 1, .ints([0, 1, 1, 2])), (0xC61D, 4, .ints([65535])),
        ]
        var main: [(Int, Int, Payload)] = [
            (0x010F, 2, .text("photodrop")), (0x0110, 2, .text("Synthetic DNG")), (0x0112, 3, .ints([orientation])),
            (0xC612, 1, .ints([1, 4, 0, 0])), (0xC614, 2, .text("photodrop Synthetic DNG")),
            (0xC621, 10, .rationals(matrix)), (0xC628, 5, .rationals([1, 1, 1])), (0xC65A, 3, .ints([21])),
        ]
        if let thumbnail {
            main += [
                (0x00FE, 4, .ints([1])), (0x0100, 4, .ints([160])), (0x0101, 4, .ints([120])),
                (0x0103, 3, .ints([7])), (0x0106, 3, .ints([6])), (0x0111, 4, .thumbnail),
                (0x0117, 4, .ints([thumbnail.count])), (0x014A, 4, .subIFD),
            ]
        } else {
            main += raw
            raw = []
        }
        // Layout: header | IFD0 | its values | sub-IFD | its values | mosaic | thumbnail.
        let first = tiffDirectory(main, at: 8, mosaicAt: 0, thumbnailAt: 0, subIFDAt: 0)
        let second = tiffDirectory(raw, at: 8 + first.count, mosaicAt: 0, thumbnailAt: 0, subIFDAt: 0)
        let mosaicAt = 8 + first.count + (raw.isEmpty ? 0 : second.count)
        let thumbnailAt = mosaicAt + mosaic.count
        var bytes = Data("II".utf8) + le16(42) + le32(8)
        bytes += tiffDirectory(main, at: 8, mosaicAt: mosaicAt, thumbnailAt: thumbnailAt, subIFDAt: 8 + first.count)
        if !raw.isEmpty {
            bytes += tiffDirectory(raw, at: 8 + first.count, mosaicAt: mosaicAt, thumbnailAt: 0, subIFDAt: 0)
        }
        return bytes + mosaic + (thumbnail ?? Data())
    }

    private enum Payload {
        case ints([Int])
        case text(String)
        case rationals([Double])
        /// The offset of the mosaic, of the thumbnail, of the sub-IFD: known once the layout is.
        case mosaic, thumbnail, subIFD
    }

    /// A directory at `offset` with its out-of-line values right after it.
    private static func tiffDirectory(
        _ entries: [(tag: Int, type: Int, payload: Payload)], at offset: Int, mosaicAt: Int, thumbnailAt: Int,
        subIFDAt: Int
    ) -> Data {
        let sorted = entries.sorted { $0.tag < $1.tag }
        var values = Data()
        var table = le16(sorted.count)
        let valuesAt = offset + 2 + sorted.count * 12 + 4
        for entry in sorted {
            var encoded = Data()
            var count = 1
            switch entry.payload {
            case .ints(let numbers):
                count = numbers.count
                for number in numbers {
                    encoded += entry.type == 1 ? Data([UInt8(number)]) : entry.type == 3 ? le16(number) : le32(number)
                }
            case .text(let text):
                encoded = Data(text.utf8) + Data([0])
                count = encoded.count
            case .rationals(let numbers):
                count = numbers.count
                for number in numbers { encoded += le32(Int((number * 10000).rounded()) & 0xFFFF_FFFF) + le32(10000) }
            case .mosaic: encoded = le32(mosaicAt)
            case .thumbnail: encoded = le32(thumbnailAt)
            case .subIFD: encoded = le32(subIFDAt)
            }
            table += le16(entry.tag) + le16(entry.type) + le32(count)
            if encoded.count <= 4 {
                table += encoded + Data(repeating: 0, count: 4 - encoded.count)
            } else {
                table += le32(valuesAt + values.count)
                values += encoded
                if values.count % 2 == 1 { values += Data([0]) }
            }
        }
        return table + le32(0) + values
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
