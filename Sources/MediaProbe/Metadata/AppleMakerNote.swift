/// Apple's EXIF MakerNote (`Apple iOS\0`, version, `MM`, then an IFD whose offsets count from the note's start), as
/// iPhones write it into JPEG and HEIC photos.
enum AppleMakerNote {
    /// Tag 0x0011, `ContentIdentifier`: the UUID that pairs a Live Photo's still with its movie.
    static let contentIdentifierTag: UInt16 = 0x0011

    /// The content identifier, or `nil` when `note` is not an Apple MakerNote or lacks a readable one.
    static func contentIdentifier(_ note: ArraySlice<UInt8>) -> String? {
        let bytes = Array(note)
        let signature: [UInt8] = Array("Apple iOS".utf8) + [0]
        guard bytes.count >= 16, bytes.starts(with: signature) else { return nil }
        let littleEndian: Bool
        switch (bytes[12], bytes[13]) {
        case (0x4D, 0x4D): littleEndian = false
        case (0x49, 0x49): littleEndian = true
        default: return nil
        }
        let count = Int(ByteReader.load16(bytes, 14, littleEndian))
        guard count > 0, count <= 512, 16 + count * 12 <= bytes.count else { return nil }
        for i in 0..<count {
            let at = 16 + i * 12
            guard ByteReader.load16(bytes, at, littleEndian) == contentIdentifierTag,
                ByteReader.load16(bytes, at + 2, littleEndian) == 2
            else { continue }
            let length = Int(ByteReader.load32(bytes, at + 4, littleEndian))
            guard length > 0, length <= 256 else { return nil }
            let start = length <= 4 ? at + 8 : Int(ByteReader.load32(bytes, at + 8, littleEndian))
            guard start >= 0, start + length <= bytes.count else { return nil }
            let text = bytes[start..<start + length].prefix { $0 != 0 }
            let value = String(decoding: text, as: UTF8.self).trimmingSpaces()
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
