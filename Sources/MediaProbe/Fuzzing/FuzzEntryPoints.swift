/// Entry points for the libFuzzer targets (`Sources/FuzzTargets`): each runs one family of parsers over bytes in
/// memory, without libmagic, exactly as a probe would run them on a file.
@_spi(Fuzzing)
public enum FuzzEntryPoints {
    /// The ISO-BMFF box walker and everything behind it: movies (`moov`, fragments, codecs, QuickTime metadata),
    /// HEIF/AVIF items, CR3.
    public static func boxes(_ data: UnsafeRawBufferPointer) {
        let source = ByteSource(bytes: Array(data))
        _ = try? ISOBMFFProbe.probe(source, policy: .appleDefault)
    }

    /// The EXIF/TIFF directory reader, as it reads EXIF blocks (with or without the `Exif\0\0` header) and as it
    /// checks whole TIFF files.
    public static func exif(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        let start = bytes.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) ? 6 : 0
        if let walk = try? TIFFWalker.walk(TIFFStream(bytes: bytes, range: start..<bytes.count), structure: false) {
            var metadata = MediaMetadata()
            EmbeddedMetadata(exif: walk.exif).apply(to: &metadata)
        }
        _ = try? TIFFWalker.walk(TIFFStream(source: ByteSource(bytes: bytes), base: 0), structure: true)
        _ = AppleMakerNote.contentIdentifier(bytes[...])
    }

    /// The image walkers: whatever the own sniffers recognise (JPEG, PNG, GIF, WebP, BMP, TIFF/RAW, RAF, ISO-BMFF,
    /// MPEG-TS), through the same dispatch as a probe.
    public static func images(_ data: UnsafeRawBufferPointer) {
        let source = ByteSource(bytes: Array(data))
        _ = try? ContentClassifier.analyze(source, policy: .appleDefault, magic: nil)
    }
}
