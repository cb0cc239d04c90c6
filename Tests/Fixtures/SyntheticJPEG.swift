/// Small valid baseline JPEGs written byte by byte, for the tests of every module that need photos without the
/// corpus: SOI, optional EXIF (DateTimeOriginal), JFIF, tables, a `width`×`height` frame, a pseudo-random scan seeded by
/// `seed` (so that every seed hashes differently; by default as much as such a frame needs at least), and EOI unless
/// `complete` is false (a truncated upload).
/// MediaProbe accepts them as photos; the image data is not meant to decode to anything.
public enum SyntheticJPEG {
    public static func bytes(
        seed: Int, width: Int = 64, height: Int = 48, taken: String? = nil, offset: String? = nil,
        xmp: String? = nil, scanBytes: Int? = nil, complete: Bool = true, contentIdentifier: String? = nil
    ) -> [UInt8] {
        let scanBytes = scanBytes ?? max(600, leastScanBytes(width: width, height: height) + 64)
        var bytes: [UInt8] = [0xFF, 0xD8]
        if let taken {
            bytes += segment(
                0xE1,
                Array("Exif".utf8) + [0, 0]
                    + exif(dateTimeOriginal: taken, offset: offset, contentIdentifier: contentIdentifier))
        }
        if let xmp {
            // An XMP packet (APP1, Adobe's namespace header) whose description carries `xmp` as attributes.
            // The namespaces real packets declare, so that the attributes are read by namespace as photodrop does.
            let packet = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF "
                + "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
                + "xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" "
                + "xmlns:exif=\"http://ns.adobe.com/exif/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
                + "<rdf:Description \(xmp)/></rdf:RDF></x:xmpmeta>"
            bytes += segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(packet.utf8))
        }
        bytes += segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0] + be16(72) + be16(72) + [0, 0])
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        bytes += segment(0xC0, [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
        bytes += segment(0xC4, [0] + [UInt8](repeating: 0, count: 16))
        bytes += segment(0xDA, [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0])
        var state = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
        var written = 0
        while written < scanBytes {
            state = state &* 1_103_515_245 &+ 12345
            let byte = UInt8(truncatingIfNeeded: state >> 16)
            bytes.append(byte)
            written += 1
            if byte == 0xFF { bytes.append(0) }
        }
        if complete { bytes += [0xFF, 0xD9] }
        return bytes
    }

    /// The least scan data a baseline 4:2:0 frame of `width` × `height` can have (two bits per 8 × 8 block): a
    /// fixture with less has a header that lies about its data, which photodrop rejects.
    public static func leastScanBytes(width: Int, height: Int) -> Int {
        let luma = ((width + 7) / 8) * ((height + 7) / 8)
        let chroma = (((width + 1) / 2 + 7) / 8) * (((height + 1) / 2 + 7) / 8)
        return (luma + 2 * chroma) * 2 / 8
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value) }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    /// A big-endian TIFF block with IFD0 → Exif IFD → DateTimeOriginal (`YYYY:MM:DD HH:MM:SS`) and, when given,
    /// OffsetTimeOriginal (`+09:00`) and an iPhone's Apple MakerNote carrying a Live Photo content identifier.
    static func exif(dateTimeOriginal: String, offset: String? = nil, contentIdentifier: String? = nil) -> [UInt8] {
        // (tag, type, count, value bytes), in tag order; every value is stored after the IFD.
        var fields: [(UInt16, Int, [UInt8])] = [(0x9003, 2, Array(dateTimeOriginal.utf8) + [0])]
        if let offset { fields.append((0x9011, 2, Array(offset.utf8) + [0])) }
        if let contentIdentifier { fields.append((0x927C, 7, appleMakerNote(contentIdentifier))) }
        var tiff: [UInt8] = Array("MM".utf8) + be16(42) + be32(8)
        // IFD0 at 8: one entry, ExifIFD pointer (0x8769, LONG) → 26.
        tiff += be16(1) + be16(0x8769) + be16(4) + be32(1) + be32(26) + be32(0)
        var valueOffset = 26 + 2 + 12 * fields.count + 4
        var values: [UInt8] = []
        tiff += be16(fields.count)
        for (tag, type, value) in fields {
            tiff += be16(Int(tag)) + be16(type) + be32(value.count) + be32(valueOffset)
            values += value
            valueOffset += value.count
        }
        return tiff + be32(0) + values
    }

    /// An iPhone's MakerNote: `Apple iOS\0`, version 1, `MM`, then an IFD whose value offsets count from the note's
    /// first byte, with MakerNoteVersion (SLONG 14) and the content identifier (tag 0x0011, ASCII).
    static func appleMakerNote(_ identifier: String) -> [UInt8] {
        let text = Array(identifier.utf8) + [0]
        let header = Array("Apple iOS".utf8) + [0] + be16(1) + Array("MM".utf8)
        let values = header.count + 2 + 2 * 12 + 4
        return header + be16(2) + be16(0x0001) + be16(9) + be32(1) + be32(14)
            + be16(0x0011) + be16(2) + be32(text.count) + be32(values) + be32(0) + text
    }
}
