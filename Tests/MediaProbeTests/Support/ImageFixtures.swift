/// Hand-written image files for the walkers' rules.
enum ImageFixtures {
    // MARK: JPEG

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + .be16(payload.count + 2) + payload
    }

    /// An XMP packet: `body` (`rdf:Description` elements) inside `x:xmpmeta`/`rdf:RDF`, with the namespaces of
    /// `rdf:`, `exif:`, `exifEX:`, `aux:`, `tiff:`, `photoshop:`, `xmp:`, `xmpNote:` and `dc:` declared.
    static func xmpPacket(_ body: String) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" \
        xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:exifEX="http://cipa.jp/exif/1.0/" \
        xmlns:aux="http://ns.adobe.com/exif/1.0/aux/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" \
        xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
        xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmlns:dc="http://purl.org/dc/elements/1.1/">\(body)</rdf:RDF>\
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
    }

    /// Entropy-coded bytes that contain 0xFF only as stuffed `FF 00` and restart markers.
    static func scanData(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var state: UInt32 = 12345
        while bytes.count < count {
            state = state &* 1_103_515_245 &+ 12345
            let b = UInt8(truncatingIfNeeded: state >> 16)
            bytes.append(b)
            if b == 0xFF { bytes.append(0x00) }
            if bytes.count % 997 == 0 { bytes += [0xFF, 0xD0 + UInt8(bytes.count % 8)] }
        }
        return bytes
    }

    static func sof(width: Int, height: Int, marker: UInt8 = 0xC0) -> [UInt8] {
        segment(marker, [8] + .be16(height) + .be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
    }

    static let sos: [UInt8] = segment(0xDA, [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0])

    /// SOI, APP1 EXIF (optional), DQT, SOF0, DHT, SOS, scan, EOI, then `trailing` bytes. Three components sampled
    /// 4:2:0: a sequential JPEG of `width` × `height` needs at least 2 bits per 8 × 8 block of scan data (640 × 480:
    /// 1,800 bytes), a progressive one 1 bit; fewer makes it a header that lies.
    static func jpeg(
        width: Int = 640, height: Int = 480, exif: [UInt8]? = nil, scanBytes: Int = 2000, progressive: Bool = false,
        withEOI: Bool = true, withSOF: Bool = true, trailing: [UInt8] = []
    ) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        if let exif { bytes += segment(0xE1, .ascii("Exif") + [0, 0] + exif) }
        bytes += segment(0xE0, .ascii("JFIF") + [0, 1, 1, 0] + .be16(72) + .be16(72) + [0, 0])
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        if withSOF { bytes += sof(width: width, height: height, marker: progressive ? 0xC2 : 0xC0) }
        bytes += segment(0xC4, [0] + .zeros(16))
        bytes += sos + scanData(scanBytes)
        if progressive {
            // A second scan after a table segment, as progressive JPEGs have.
            bytes += segment(0xC4, [0x10] + .zeros(16)) + sos + scanData(scanBytes / 2)
        }
        if withEOI { bytes += [0xFF, 0xD9] }
        return bytes + trailing
    }

    // MARK: PNG

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body: [UInt8] = .ascii(type) + data
        return .be32(data.count) + body + .be32(Int(CRC32.checksum(body)))
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func png(
        width: Int = 304, height: Int = 84, frames: Int? = nil, exif: [UInt8]? = nil, idatChunks: Int = 3,
        withIEND: Bool = true
    ) -> [UInt8] {
        var bytes = pngSignature + chunk("IHDR", .be32(width) + .be32(height) + [8, 6, 0, 0, 0])
        if let frames { bytes += chunk("acTL", .be32(frames) + .be32(0)) }
        if let exif { bytes += chunk("eXIf", exif) }
        for i in 0..<idatChunks { bytes += chunk("IDAT", [UInt8](repeating: UInt8(i), count: 300)) }
        if withIEND { bytes += chunk("IEND", []) }
        return bytes
    }

    // MARK: GIF

    static func gif(width: Int = 8, height: Int = 8, frames: Int = 1, delay: Int = 10, withTrailer: Bool = true)
        -> [UInt8]
    {
        var bytes: [UInt8] = .ascii("GIF89a") + .le16(width) + .le16(height) + [0xF1, 0, 0]
        bytes += [UInt8](repeating: 0x80, count: 3 * 4)  // 4-entry global color table
        if frames > 1 {
            bytes += [0x21, 0xFF, 0x0B] + .ascii("NETSCAPE2.0") + [3, 1, 0, 0, 0]
        }
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 4, 0] + .le16(delay) + [0, 0]
            bytes += [0x2C] + .le16(0) + .le16(0) + .le16(width) + .le16(height) + [0]
            bytes += [2, 5, 0x84, 0x8F, 0xA9, 0xCB, 0xED, 3, 0x0F, 0xA3, 0x9C, 0]
        }
        if withTrailer { bytes.append(0x3B) }
        return bytes
    }

    // MARK: WebP

    static func riffChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        .ascii(type) + .le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    static func webp(chunks: [[UInt8]], declaredExtra: Int = 0) -> [UInt8] {
        let body: [UInt8] = .ascii("WEBP") + chunks.flatMap { $0 }
        return .ascii("RIFF") + .le32(body.count + declaredExtra) + body
    }

    static func vp8l(width: Int, height: Int) -> [UInt8] {
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        return riffChunk("VP8L", [0x2F] + .le32(Int(bits)) + .zeros(20))
    }

    static func animatedWebP(width: Int, height: Int, frames: Int, exif: [UInt8]? = nil) -> [UInt8] {
        let vp8x = riffChunk(
            "VP8X",
            [0x02 | (exif != nil ? 0x08 : 0), 0, 0, 0] + Array([UInt8].le32(width - 1).prefix(3))
                + Array([UInt8].le32(height - 1).prefix(3)))
        var chunks = [vp8x, riffChunk("ANIM", .zeros(6))]
        for _ in 0..<frames {
            let header: [UInt8] =
                .zeros(6) + Array([UInt8].le32(width - 1).prefix(3))
                + Array([UInt8].le32(height - 1).prefix(3)) + [100, 0, 0, 0]
            chunks.append(riffChunk("ANMF", header + vp8l(width: width, height: height)))
        }
        if let exif { chunks.append(riffChunk("EXIF", exif)) }
        return webp(chunks: chunks)
    }

    // MARK: BMP

    static func bmp(width: Int = 8, height: Int = 8, bitsPerPixel: Int = 24, cutPixels: Int = 0) -> [UInt8] {
        let stride = (width * bitsPerPixel + 31) / 32 * 4
        let pixels = stride * height
        let info: [UInt8] =
            .le32(40) + .le32(width) + .le32(height) + .le16(1) + .le16(bitsPerPixel) + .le32(0)
            + .le32(pixels) + .le32(2835) + .le32(2835) + .le32(0) + .le32(0)
        let header: [UInt8] = .ascii("BM") + .le32(14 + 40 + pixels) + .le32(0) + .le32(54)
        return header + info + [UInt8](repeating: 0x7F, count: pixels - cutPixels)
    }

    // MARK: TIFF

    /// A small RGB TIFF whose single strip follows the directories.
    static func tiff(
        littleEndian: Bool = true, magic: Int = 42, headerExtra: [UInt8] = [], width: Int = 16, height: Int = 8,
        make: String? = nil, dng: Bool = false, photometric: Int = 2, compression: Int = 1, stripExtra: Int = 0,
        exif: [TIFFWriter.Entry] = []
    ) -> [UInt8] {
        var w = TIFFWriter(littleEndian: littleEndian, magic: magic, headerExtra: headerExtra)
        let strip = [UInt8](repeating: 0x55, count: width * height * 3)
        w.trailer = strip
        w.exif = exif
        func entries(stripOffset: Int) -> [TIFFWriter.Entry] {
            var e: [TIFFWriter.Entry] = [
                .init(tag: 0x00FE, value: .long([0])), .init(tag: 0x0100, value: .long([width])),
                .init(tag: 0x0101, value: .long([height])), .init(tag: 0x0102, value: .short([8, 8, 8])),
                .init(tag: 0x0103, value: .short([compression])), .init(tag: 0x0106, value: .short([photometric])),
                .init(tag: 0x0111, value: .long([stripOffset])), .init(tag: 0x0115, value: .short([3])),
                .init(tag: 0x0116, value: .long([height])),
                .init(tag: 0x0117, value: .long([strip.count + stripExtra])),
            ]
            if let make { e.append(.init(tag: 0x010F, value: .ascii(make))) }
            if dng { e.append(.init(tag: 0xC612, value: .raw(type: 1, count: 4, bytes: [1, 4, 0, 0]))) }
            return e.sorted { $0.tag < $1.tag }
        }
        w.ifd0 = entries(stripOffset: 0)
        let offset = w.trailerOffset
        w.ifd0 = entries(stripOffset: offset)
        return w.build()
    }
}
