/// The top-level boxes of an ISO-BMFF / QuickTime file, found by reading box headers only (a 4 GB `mdat` costs one
/// 32-byte read).
struct TopLevelBoxes {
    /// The `ftyp` box: major brand and compatible brands.
    struct FileType: Equatable {
        var major: FourCC
        var compatible: [FourCC]

        func has(_ brand: FourCC) -> Bool { major == brand || compatible.contains(brand) }
    }

    /// At most this many top-level boxes are walked.
    static let maxBoxes = 1_000_000

    var fileType: FileType?
    var moov: BoxHeader?
    var meta: BoxHeader?
    var moofs: [BoxHeader] = []
    /// A `uuid` box whose UUID is XMP's (`BE7ACFCB-97A9-42E8-9C71-999491E3AFAC`): the file's XMP packet.
    var xmp: BoxHeader?
    var mdatCount = 0
    /// A Samsung motion photo's movie (`mpvd`) beside a HEIC's image.
    var hasMotionPhotoVideo = false
    /// Where the media data lies: the payloads of the first ``maxMediaData`` `mdat` boxes, in file order.
    var mediaData: [Range<Int64>] = []
    /// At most this many `mdat` extents are kept; a file with more is not checked against them.
    static let maxMediaData = 4096
    var boxCount = 0
    /// Why data is missing at the end: the box that runs past the end of the file, or a cut header.
    var truncation: String?
    /// The box that runs past the end of the file (its declared extent).
    var overrunBox: BoxHeader?
    /// Why the box structure is broken (a size smaller than a header, too many boxes).
    var broken: String?

    /// Walks the file's top-level boxes.
    static func walk(_ source: ByteSource) throws(ProbeError) -> TopLevelBoxes {
        var top = TopLevelBoxes()
        var offset: Int64 = 0
        let size = source.size
        while offset < size {
            if top.boxCount >= maxBoxes {
                top.broken = "more than \(maxBoxes) top-level boxes"
                break
            }
            let want = Int(min(32, size - offset))
            let bytes: [UInt8]
            if offset + Int64(want) <= Int64(source.headCount) {
                bytes = Array(source.head[Int(offset)..<Int(offset) + want])
            } else {
                guard let read = try source.read(at: offset, count: want) else {
                    top.truncation = "the file shrank while it was being read"
                    break
                }
                bytes = read
            }
            switch BoxHeader.parse(bytes, at: offset, base: offset, limit: size) {
            case .success(let box):
                top.boxCount += 1
                top.note(box)
                if box.type == "uuid", top.xmp == nil, box.userType == xmpUUID { top.xmp = box }
                if box.type == "ftyp", top.fileType == nil {
                    top.fileType = try readFileType(source, box)
                }
                offset = box.end
            case .failure(.headerCut):
                if bytes.count == 4, bytes.allSatisfy({ $0 == 0 }) {
                    // QuickTime writers may end a file with a 32-bit zero terminator.
                    offset = size
                } else {
                    top.truncation = "the file ends inside the header of a box at offset \(offset)"
                    offset = size
                }
            case .failure(.badSize(let declared)):
                if top.boxCount > 0, bytes.allSatisfy({ $0 == 0 }) {
                    // Zero padding after the last box.
                    offset = size
                } else {
                    top.broken =
                        "the box at offset \(offset) declares \(declared) bytes, less than its own header"
                    offset = size
                }
            case .failure(.overrun(let box)):
                top.boxCount += 1
                top.note(box)
                top.overrunBox = box
                top.truncation =
                    "box '\(box.type)' at offset \(box.offset) declares \(box.size) bytes but the file ends after "
                    + "\(size - box.offset) of them"
                offset = size
            }
        }
        return top
    }

    /// The UUID of the box that holds XMP in ISO-BMFF files.
    static let xmpUUID: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]

    private mutating func note(_ box: BoxHeader) {
        switch box.type {
        case "moov": if moov == nil { moov = box }
        case "meta": if meta == nil { meta = box }
        case "moof": moofs.append(box)
        case "mpvd": hasMotionPhotoVideo = true
        case "mdat":
            mdatCount += 1
            if mediaData.count < TopLevelBoxes.maxMediaData { mediaData.append(box.payloadOffset..<box.end) }
        default: break
        }
    }

    private static func readFileType(_ source: ByteSource, _ box: BoxHeader) throws(ProbeError) -> FileType? {
        let count = Int(min(box.payloadSize, 8 + 4 * 64))
        guard count >= 4, let bytes = try source.read(at: box.payloadOffset, count: count) else { return nil }
        var compatible: [FourCC] = []
        var i = 8
        while i + 4 <= bytes.count {
            compatible.append(FourCC(bytes, at: i))
            i += 4
        }
        return FileType(major: FourCC(bytes, at: 0), compatible: compatible)
    }

    /// Whether every byte of `range` lies in the payload of some `mdat` box (true when the file has more `mdat` boxes
    /// than are kept: it is then not checked).
    func isMediaData(_ range: Range<Int64>) -> Bool {
        guard mdatCount <= TopLevelBoxes.maxMediaData else { return true }
        // The extents are in file order and do not overlap: the first one that ends after `start` must contain it
        // (else there is a gap), and the range is covered once `start` reaches its end.
        var start = range.lowerBound
        for extent in mediaData where extent.upperBound > start {
            guard extent.lowerBound <= start else { return false }
            start = extent.upperBound
            if start >= range.upperBound { return true }
        }
        return start >= range.upperBound
    }

    /// Whether the box lies completely inside the file.
    func isComplete(_ box: BoxHeader) -> Bool { box != overrunBox }
}
