import PhotodropSystem

/// Reads the colour description of a HEIF or AVIF file's primary image (its `colr` box of type `nclx`), which libvips
/// does not report: a 10-bit PQ or HLG photo must be tone-mapped before it is shown on an SDR screen. Reads the
/// top-level box headers and the `meta` box only.
public enum HEIFColourReader {
    /// The colour description of the primary image in the file open at `descriptor` (of a grid's first tile when
    /// the grid has none), or nil when the file has none or is not a HEIF file.
    public static func colour(in descriptor: FileDescriptor) -> ColourDescription? {
        guard let size = try? descriptor.status().size else { return nil }
        let headCount = Int(min(size, Int64(ByteSource.headLimit)))
        var head = [UInt8](repeating: 0, count: headCount)
        let read = head.withUnsafeMutableBytes { try? descriptor.readFully(into: $0, at: 0) }
        guard read == headCount else { return nil }
        let source = ByteSource(
            descriptor: descriptor, size: size, head: head, headCount: headCount, prefix: nil, path: nil,
            headBytesRead: Int64(headCount))
        guard let top = try? TopLevelBoxes.walk(source), let metaBox = top.meta, top.isComplete(metaBox),
            metaBox.size <= ISOBMFFProbe.maxMetaBox,
            let loaded = try? ISOBMFFProbe.load(source, metaBox),
            let parsed = try? HEIFParser.parse(loaded.bytes, meta: loaded.box),
            let primary = parsed.primaryID
        else { return nil }
        for item in [primary] + parsed.referenced(from: primary, type: "dimg").prefix(1) {
            for case .colour(let colour) in parsed.properties(of: item) { return colour }
        }
        return nil
    }
}
