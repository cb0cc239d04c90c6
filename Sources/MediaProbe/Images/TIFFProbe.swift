/// Probes TIFF and TIFF-based camera RAW (DNG, CR2, NEF, ARW, ORF, RW2, PEF, SRW …): every directory, strip and tile
/// must lie inside the file. The RAW flavour comes from the header (CR2, ORF, RW2), `DNGVersion`, or the maker and
/// the presence of colour-filter-array data.
enum TIFFProbe {
    struct Flavor {
        var name: String
        var ext: String
        var mime: String
        var isRAW: Bool
    }

    static func probe(_ source: ByteSource, cr2: Bool) throws(ProbeError) -> ProbeResult {
        let walk = try TIFFWalker.walk(TIFFStream(source: source, base: 0), structure: true)
        let flavor = flavor(of: walk, cr2: cr2)
        var metadata = MediaMetadata(container: "tiff")
        EmbeddedMetadata(exif: walk.exif).apply(to: &metadata)
        if let size = pixelSize(walk, flavor: flavor) {
            metadata.pixelWidth = size.width
            metadata.pixelHeight = size.height
        }
        if let broken = walk.broken {
            return .rejected(
                .corrupt, message: "not a valid \(flavor.name): \(broken)", mime: flavor.mime,
                fileExtension: flavor.ext, metadata: metadata)
        }
        if let missing = walk.missingData {
            return ISOBMFFProbe.truncated(
                "\(flavor.name) \(missing)", mime: flavor.mime, ext: flavor.ext, metadata: metadata)
        }
        guard !walk.images.isEmpty else {
            return .rejected(
                .corrupt, message: "not a valid \(flavor.name): no image directory", mime: flavor.mime,
                fileExtension: flavor.ext, metadata: metadata)
        }
        let text = flavor.isRAW ? "camera RAW photo (\(flavor.name))" : "TIFF photo"
        return .accepted(
            .photo, message: "\(text)\(metadata.sizeText)", mime: flavor.mime, fileExtension: flavor.ext,
            metadata: metadata)
    }

    static func flavor(of walk: TIFFWalker.Result, cr2: Bool) -> Flavor {
        if cr2 { return Flavor(name: "Canon CR2", ext: "cr2", mime: "image/x-canon-cr2", isRAW: true) }
        switch walk.magic {
        case 0x4F52, 0x5352: return Flavor(name: "Olympus ORF", ext: "orf", mime: "image/x-olympus-orf", isRAW: true)
        case 0x55: return Flavor(name: "Panasonic RW2", ext: "rw2", mime: "image/x-panasonic-rw2", isRAW: true)
        default: break
        }
        if walk.isDNG { return Flavor(name: "DNG", ext: "dng", mime: "image/x-adobe-dng", isRAW: true) }
        let rawCompressions: Set<UInt64> = [32767, 32769, 32770, 34713, 34316, 65000, 65535]
        let hasRAWData = walk.images.contains { image in
            image.photometric == 32803 || image.photometric == 34892
                || image.compression.map(rawCompressions.contains) == true
        }
        if hasRAWData {
            let make = (walk.exif.make ?? "").uppercased()
            if make.hasPrefix("NIKON") {
                return Flavor(name: "Nikon NEF", ext: "nef", mime: "image/x-nikon-nef", isRAW: true)
            }
            if make.hasPrefix("SONY") {
                return Flavor(name: "Sony ARW", ext: "arw", mime: "image/x-sony-arw", isRAW: true)
            }
            if make.hasPrefix("PENTAX") || make.hasPrefix("RICOH") {
                return Flavor(name: "Pentax PEF", ext: "pef", mime: "image/x-pentax-pef", isRAW: true)
            }
            if make.hasPrefix("SAMSUNG") {
                return Flavor(name: "Samsung SRW", ext: "srw", mime: "image/x-samsung-srw", isRAW: true)
            }
            if make.hasPrefix("CANON") {
                return Flavor(name: "Canon CR2", ext: "cr2", mime: "image/x-canon-cr2", isRAW: true)
            }
            return Flavor(name: "camera RAW", ext: "tiff", mime: "image/tiff", isRAW: true)
        }
        return Flavor(name: "TIFF", ext: "tiff", mime: "image/tiff", isRAW: false)
    }

    /// TIFF: the first image. RAW: the full-resolution image of a DNG, else the EXIF pixel dimensions, else the
    /// largest image.
    private static func pixelSize(_ walk: TIFFWalker.Result, flavor: Flavor) -> (width: Int, height: Int)? {
        func size(_ image: TIFFWalker.Image) -> (width: Int, height: Int)? {
            guard let w = image.width, let h = image.height else { return nil }
            return (w, h)
        }
        func largest(_ images: [TIFFWalker.Image]) -> (width: Int, height: Int)? {
            images.compactMap(size).max { $0.width * $0.height < $1.width * $1.height }
        }
        if !flavor.isRAW { return walk.images.first.flatMap(size) }
        if walk.isDNG, let full = largest(walk.images.filter { ($0.subfileType ?? 0) & 1 == 0 }) { return full }
        if let w = walk.exif.pixelXDimension, let h = walk.exif.pixelYDimension { return (w, h) }
        return largest(walk.images)
    }
}
