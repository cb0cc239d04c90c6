/// Iterates the child boxes inside a block of bytes already in memory (a `moov`, `meta` or `moof` box), never past
/// the parent's end; a child that does not fit is a ``ParseError``.
struct BoxIterator {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    /// Iterates `bytes[range]`.
    init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    /// Iterates the payload of `box` (whose offsets are indices into `bytes`), skipping `skip` bytes first (4 for
    /// full boxes such as `meta`, 8 for `stsd`).
    init(_ bytes: [UInt8], payloadOf box: BoxHeader, skip: Int = 0) {
        let start = Int(box.payloadOffset) + skip
        self.init(bytes, range: min(start, Int(box.end))..<Int(box.end))
    }

    /// The next child, or `nil` at the end (fewer than 8 bytes left, as in QuickTime's 4-byte zero terminators).
    mutating func next() throws(ParseError) -> BoxHeader? {
        guard end - position >= 8 else { return nil }
        switch BoxHeader.parse(bytes, at: Int64(position), limit: Int64(end)) {
        case .success(let header):
            position = Int(header.end)
            return header
        case .failure(.headerCut):
            return nil
        case .failure(.badSize(let size)):
            throw ParseError("a box at offset \(position) declares \(size) bytes, less than its header")
        case .failure(.overrun(let header)):
            throw ParseError("box '\(header.type)' (\(header.size) bytes) runs past the end of its parent")
        }
    }

    /// Every child (stops quietly at the first malformed one when `lenient`).
    mutating func all(lenient: Bool = false) throws(ParseError) -> [BoxHeader] {
        var boxes: [BoxHeader] = []
        while true {
            let box: BoxHeader?
            do throws(ParseError) {
                box = try next()
            } catch {
                if lenient { break }
                throw error
            }
            guard let box else { break }
            boxes.append(box)
            if boxes.count > 100_000 {
                if lenient { break }
                throw ParseError("more than 100000 boxes in one container")
            }
        }
        return boxes
    }

    /// The first child of `type`.
    static func first(_ type: FourCC, in bytes: [UInt8], payloadOf box: BoxHeader, skip: Int = 0) -> BoxHeader? {
        var it = BoxIterator(bytes, payloadOf: box, skip: skip)
        while let child = try? it.next() {
            if child.type == type { return child }
        }
        return nil
    }

    /// A reader over the payload of `box` in `bytes`.
    static func payload(_ bytes: [UInt8], _ box: BoxHeader) -> ByteReader {
        ByteReader(bytes, range: Int(box.payloadOffset)..<Int(box.end))
    }
}
