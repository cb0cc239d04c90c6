/// A fixture HEIF/AVIF file: `ftyp`, `meta` (hdlr, pitm, iinf, iloc, iprp, iref) and `mdat` with the item data.
struct HEIFSpec {
    var brand = "heic"
    var compatible = ["mif1", "heic"]
    var primaryType = "hvc1"
    var width = 4032
    var height = 3024
    /// `irot` quarter turns anti-clockwise.
    var rotation: Int?
    var mirrorAxis: Int?
    /// A TIFF stream stored as an `Exif` item that describes the primary image.
    var exif: [UInt8]?
    var imageDataSize = 1000
    /// Added to the primary item's extent length (to point past the data).
    var extraExtentLength = 0
    var writePrimaryItem = true
    var writePrimaryLocation = true
    /// For a `grid` primary: the tile type (two tiles referenced with `dimg`).
    var gridTileType: String?
    /// Extra top-level boxes after `mdat` (a motion photo's `mpvd`).
    var trailingBoxes: [[UInt8]] = []

    private func meta(dataStart: Int) -> [UInt8] {
        var items: [(id: Int, type: String, length: Int)] = []
        if gridTileType != nil {
            items.append((1, "grid", 8))
            items.append((3, gridTileType!, imageDataSize / 2))
            items.append((4, gridTileType!, imageDataSize / 2))
        } else {
            items.append((1, primaryType, imageDataSize + extraExtentLength))
        }
        if let exif { items.append((2, "Exif", exif.count + 4 + 6)) }
        let hdlr = BMFF.full("hdlr", .be32(0) + .fourCC("pict") + .zeros(12) + [0])
        let pitm = BMFF.full("pitm", .be16(1))
        let infos = items.filter { $0.id != 1 || writePrimaryItem }.map { item in
            BMFF.full("infe", version: 2, .be16(item.id) + .be16(0) + .fourCC(item.type) + [0])
        }
        let iinf = BMFF.full("iinf", .be16(infos.count) + infos.flatMap { $0 })
        var next = dataStart
        var entries: [UInt8] = []
        var count = 0
        for item in items {
            let length = item.id == 1 && gridTileType == nil ? imageDataSize : item.length
            defer { next += length }
            if item.id == 1, !writePrimaryLocation { continue }
            count += 1
            entries += .be16(item.id) + .be16(0) + .be16(1) + .be32(next) + .be32(item.length)
        }
        let iloc = BMFF.full("iloc", [0x44, 0x00] + .be16(count) + entries)
        var properties: [[UInt8]] = [
            BMFF.box("hvcC", .zeros(23)), BMFF.full("ispe", .be32(width) + .be32(height)),
        ]
        var associations: [UInt8] = [0x81, 0x02]
        if let rotation {
            properties.append(BMFF.box("irot", [UInt8(rotation)]))
            associations.append(0x80 | UInt8(properties.count))
        }
        if let mirrorAxis {
            properties.append(BMFF.box("imir", [UInt8(mirrorAxis)]))
            associations.append(0x80 | UInt8(properties.count))
        }
        let ipma = BMFF.full("ipma", .be32(1) + .be16(1) + [UInt8(associations.count)] + associations)
        let iprp = BMFF.box("iprp", [BMFF.box("ipco", properties), ipma])
        var references: [[UInt8]] = []
        if exif != nil { references.append(BMFF.box("cdsc", .be16(2) + .be16(1) + .be16(1))) }
        if gridTileType != nil { references.append(BMFF.box("dimg", .be16(1) + .be16(2) + .be16(3) + .be16(4))) }
        let iref = references.isEmpty ? [] : BMFF.full("iref", references.flatMap { $0 })
        return BMFF.full("meta", hdlr + pitm + iinf + iloc + iprp + iref)
    }

    private var data: [UInt8] {
        var bytes: [UInt8] = gridTileType != nil ? .zeros(8) : []
        bytes += [UInt8](repeating: 0x42, count: imageDataSize)
        if let exif { bytes += .be32(6) + .ascii("Exif") + [0, 0] + exif }
        return bytes
    }

    func build() -> [UInt8] {
        let ftyp = BMFF.ftyp(brand, compatible)
        let size = meta(dataStart: 0).count
        let start = ftyp.count + size + 8
        return ftyp + meta(dataStart: start) + BMFF.box("mdat", data) + trailingBoxes.flatMap { $0 }
    }
}
