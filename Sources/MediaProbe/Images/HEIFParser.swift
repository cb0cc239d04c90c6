/// Parses a HEIF/AVIF `meta` box held in memory: handler, primary item, item types, item locations (`iloc`),
/// properties (`ispe`, `irot`, `imir`, `colr` of type `nclx`) and their associations (`ipma`), item references (`iref`) and `idat`.
enum HEIFParser {
    struct Extent: Equatable {
        var offset: UInt64
        var length: UInt64
    }

    struct Location: Equatable {
        /// 0: file offsets, 1: inside `idat`, 2: inside another item.
        var constructionMethod: Int
        var baseOffset: UInt64
        var extents: [Extent]
    }

    enum Property: Equatable {
        case spatialExtent(width: Int, height: Int)
        /// Anti-clockwise rotation in quarter turns.
        case rotation(Int)
        /// 0: mirrored about the vertical axis (left↔right), 1: about the horizontal axis (top↔bottom).
        case mirror(axis: Int)
        /// A `colr` box of type `nclx`: the image's colour primaries, transfer and matrix as codes of ITU-T H.273.
        case colour(ColourDescription)
        case other(FourCC)
    }

    struct Reference: Equatable {
        var type: FourCC
        var from: UInt32
        var to: [UInt32]
    }

    struct Info {
        var handler: FourCC?
        var primaryID: UInt32?
        var itemTypes: [UInt32: FourCC] = [:]
        /// The content type of each `mime` item (`application/rdf+xml` for XMP).
        var contentTypes: [UInt32: String] = [:]
        var locations: [UInt32: Location] = [:]
        var properties: [Property] = []
        var associations: [UInt32: [Int]] = [:]
        var references: [Reference] = []
        /// Payload of `idat`, as indices into the parsed bytes.
        var idat: Range<Int>?

        /// The properties associated with `item`, in association order.
        func properties(of item: UInt32) -> [Property] {
            (associations[item] ?? []).compactMap { index in
                index >= 1 && index <= properties.count ? properties[index - 1] : nil
            }
        }

        /// The items `from` refers to with a reference of `type`.
        func referenced(from item: UInt32, type: FourCC) -> [UInt32] {
            references.filter { $0.from == item && $0.type == type }.flatMap(\.to)
        }

        /// The items that refer to `item` with a reference of `type`.
        func referring(to item: UInt32, type: FourCC) -> [UInt32] {
            references.filter { $0.type == type && $0.to.contains(item) }.map(\.from)
        }
    }

    static let maxItems = 65_536

    /// Parses `bytes[meta]`.
    static func parse(_ bytes: [UInt8], meta: BoxHeader) throws(ParseError) -> Info {
        var info = Info()
        var children = BoxIterator(bytes, payloadOf: meta, skip: 4)
        while let box = try children.next() {
            var r = BoxIterator.payload(bytes, box)
            switch box.type {
            case "hdlr":
                try r.skip(8)
                info.handler = try r.fourCC()
            case "pitm":
                let version = try r.u8()
                try r.skip(3)
                info.primaryID = version == 0 ? UInt32(try r.u16()) : try r.u32()
            case "iinf": try readItemInfo(bytes, box, into: &info)
            case "iloc": try readLocations(&r, into: &info)
            case "iprp": try readProperties(bytes, box, into: &info)
            case "iref": try readReferences(bytes, box, into: &info)
            case "idat": info.idat = Int(box.payloadOffset)..<Int(box.end)
            default: break
            }
        }
        return info
    }

    private static func readItemInfo(_ bytes: [UInt8], _ box: BoxHeader, into info: inout Info) throws(ParseError) {
        var r = BoxIterator.payload(bytes, box)
        let version = try r.u8()
        try r.skip(3)
        let skip = version == 0 ? 6 : 8
        _ = version == 0 ? UInt32(try r.u16()) : try r.u32()
        var entries = BoxIterator(bytes, payloadOf: box, skip: skip)
        while let infe = try entries.next() {
            guard infe.type == "infe" else { continue }
            guard info.itemTypes.count < maxItems else { throw ParseError("more than \(maxItems) items") }
            var e = BoxIterator.payload(bytes, infe)
            let v = try e.u8()
            try e.skip(3)
            guard v >= 2 else { continue }
            let id = v == 2 ? UInt32(try e.u16()) : try e.u32()
            try e.skip(2)
            let type = try e.fourCC()
            info.itemTypes[id] = type
            if type == "mime" {
                // item_name, then content_type: NUL-terminated strings.
                let rest = e.rest
                let fields = bytes[rest.position..<rest.end].split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
                if fields.count >= 2 { info.contentTypes[id] = String(decoding: fields[1].prefix(256), as: UTF8.self) }
            }
        }
    }

    private static func readLocations(_ r: inout ByteReader, into info: inout Info) throws(ParseError) {
        let version = try r.u8()
        try r.skip(3)
        guard version <= 2 else { throw ParseError("iloc version \(version)") }
        let sizes1 = try r.u8()
        let sizes2 = try r.u8()
        let offsetSize = Int(sizes1 >> 4)
        let lengthSize = Int(sizes1 & 0x0F)
        let baseOffsetSize = Int(sizes2 >> 4)
        let indexSize = version >= 1 ? Int(sizes2 & 0x0F) : 0
        let count = version < 2 ? Int(try r.u16()) : Int(try r.u32())
        guard count <= maxItems else { throw ParseError("iloc lists \(count) items") }
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try r.u16()) : try r.u32()
            var method = 0
            if version >= 1 { method = Int(try r.u16() & 0x000F) }
            try r.skip(2)
            let base = try r.uint(size: baseOffsetSize)
            let extentCount = Int(try r.u16())
            let perExtent = indexSize + offsetSize + lengthSize
            guard perExtent == 0 || extentCount <= r.remaining / perExtent else {
                throw ParseError("item \(id) lists \(extentCount) extents but iloc has room for fewer")
            }
            var extents: [Extent] = []
            extents.reserveCapacity(extentCount)
            for _ in 0..<extentCount {
                _ = try r.uint(size: indexSize)
                let offset = try r.uint(size: offsetSize)
                let length = try r.uint(size: lengthSize)
                extents.append(Extent(offset: offset, length: length))
            }
            info.locations[id] = Location(constructionMethod: method, baseOffset: base, extents: extents)
        }
    }

    private static func readProperties(_ bytes: [UInt8], _ box: BoxHeader, into info: inout Info)
        throws(ParseError)
    {
        var children = BoxIterator(bytes, payloadOf: box)
        while let child = try children.next() {
            if child.type == "ipco" {
                var props = BoxIterator(bytes, payloadOf: child)
                while let p = try props.next() {
                    guard info.properties.count < maxItems else { throw ParseError("too many properties") }
                    var r = BoxIterator.payload(bytes, p)
                    switch p.type {
                    case "ispe":
                        try r.skip(4)
                        let w = try r.u32()
                        let h = try r.u32()
                        info.properties.append(.spatialExtent(width: Int(w), height: Int(h)))
                    case "irot": info.properties.append(.rotation(Int(try r.u8() & 3)))
                    case "imir": info.properties.append(.mirror(axis: Int(try r.u8() & 1)))
                    case "colr":
                        // Every property takes its place in the list (associations count them), nclx or not.
                        guard p.size - Int64(p.headerSize) >= 11, try r.u32() == 0x6E63_6C78 /* nclx */ else {
                            info.properties.append(.other(p.type))
                            continue
                        }
                        let primaries = Int(try r.u16())
                        let transfer = Int(try r.u16())
                        let matrix = Int(try r.u16())
                        let fullRange = try r.u8() & 0x80 != 0
                        info.properties.append(
                            .colour(
                                ColourDescription(
                                    primaries: primaries, transfer: transfer, matrix: matrix, fullRange: fullRange)))
                    default: info.properties.append(.other(p.type))
                    }
                }
            } else if child.type == "ipma" {
                var r = BoxIterator.payload(bytes, child)
                let version = try r.u8()
                let flags = try r.u24()
                let count = Int(try r.u32())
                guard count <= maxItems else { throw ParseError("ipma lists \(count) items") }
                for _ in 0..<count {
                    let id = version < 1 ? UInt32(try r.u16()) : try r.u32()
                    let n = Int(try r.u8())
                    var list: [Int] = []
                    for _ in 0..<n {
                        if flags & 1 != 0 {
                            list.append(Int(try r.u16() & 0x7FFF))
                        } else {
                            list.append(Int(try r.u8() & 0x7F))
                        }
                    }
                    info.associations[id, default: []].append(contentsOf: list)
                }
            }
        }
    }

    private static func readReferences(_ bytes: [UInt8], _ box: BoxHeader, into info: inout Info)
        throws(ParseError)
    {
        var header = BoxIterator.payload(bytes, box)
        let version = try header.u8()
        var children = BoxIterator(bytes, payloadOf: box, skip: 4)
        while let child = try children.next() {
            guard info.references.count < maxItems else { throw ParseError("too many item references") }
            var r = BoxIterator.payload(bytes, child)
            let from = version == 0 ? UInt32(try r.u16()) : try r.u32()
            let count = Int(try r.u16())
            var to: [UInt32] = []
            for _ in 0..<count { to.append(version == 0 ? UInt32(try r.u16()) : try r.u32()) }
            info.references.append(Reference(type: child.type, from: from, to: to))
        }
    }

    /// The EXIF orientation of a sequence of `irot`/`imir` transformations.
    static func orientation(_ properties: [Property]) -> Int {
        var flip = false
        var clockwise = 0
        for p in properties {
            switch p {
            case .rotation(let quarters): clockwise = (clockwise + 4 - quarters % 4) % 4
            case .mirror(let axis):
                flip.toggle()
                clockwise = axis == 0 ? (4 - clockwise) % 4 : (6 - clockwise) % 4
            default: break
            }
        }
        switch (flip, clockwise) {
        case (false, 0): return 1
        case (true, 0): return 2
        case (false, 2): return 3
        case (true, 2): return 4
        case (true, 3): return 5
        case (false, 1): return 6
        case (true, 1): return 7
        default: return 8
        }
    }
}
