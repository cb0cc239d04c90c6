import CFFmpeg
import CLibRaw
import CVips
import FoundationEssentials
import PhotodropSystem

/// Makes the pictures photodrop shows of a photo: the two stored derivatives (a thumbnail that fits in 512 × 512, as
/// WebP, and a preview that fits in 1,440 × 1,440, as JPEG) from one decode, or one image of any size. Upright by
/// the EXIF orientation, converted to sRGB from an embedded ICC profile, never enlarged. Reads from a descriptor the
/// caller opened (never by path), refuses a header that claims more than ``maximumPixels`` before decoding, and uses
/// only the libvips loaders that are safe for untrusted input.
public struct DerivativeRenderer: Sendable {
    /// The thumbnail's box (WebP, quality 80).
    public static let thumbnailSide = 512
    /// The preview's box (JPEG, quality 85).
    public static let previewSide = 1440

    /// The most pixels (width × height, of the header) decoded; larger claims are refused before decoding.
    public var maximumPixels: Int

    public init(maximumPixels: Int = 250_000_000) {
        self.maximumPixels = maximumPixels
    }

    /// A thumbnail and a preview.
    public struct Derivatives: Sendable, Equatable {
        public let thumbnail: EncodedImage
        public let preview: EncodedImage
    }

    /// One picture to make: fitting in `width` × `height` (or filling it, cropped to the centre, with `fill`),
    /// never enlarged.
    public struct Output: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var fill: Bool
        public var format: EncodedImage.Format
        public var quality: Int

        public init(width: Int, height: Int, fill: Bool = false, format: EncodedImage.Format, quality: Int) {
            self.width = width
            self.height = height
            self.fill = fill
            self.format = format
            self.quality = quality
        }
    }

    /// A part of the upright picture, in 0…1 of its width and height.
    public struct Crop: Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double

        public init(x: Double, y: Double, width: Double, height: Double) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
    }

    /// The thumbnail and the preview of the image in the file open at `descriptor` (read from its start; the
    /// descriptor stays the caller's). The preview is decoded once, with shrink-on-load where the format has it, and
    /// the thumbnail is made from it.
    public func derivatives(ofFileAt descriptor: Int32, format: SourceFormat) throws(ImagingError) -> Derivatives {
        let pictures = try pictures(
            ofFileAt: descriptor, format: format,
            outputs: [
                Output(width: Self.previewSide, height: Self.previewSide, format: .jpeg, quality: 85),
                Output(width: Self.thumbnailSide, height: Self.thumbnailSide, format: .webp, quality: 80),
            ])
        return Derivatives(thumbnail: pictures[1], preview: pictures[0])
    }

    /// Several pictures of the image in the file open at `descriptor`, largest first: the file is decoded once, for
    /// the first (shrunk while decoded where the format allows), and each later picture is made from the decoded
    /// one before it.
    /// With `crop`, only that part of the picture is shown: the file is decoded large enough for the part to cover
    /// the first output's box.
    /// With `highDynamicRange` (a 10-bit PQ or HLG HEIF or AVIF), the decoded values are tone-mapped to SDR with
    /// zscale and tonemap (Hable), as an HDR video's are, at the size the first output needs.
    public func pictures(
        ofFileAt descriptor: Int32, format: SourceFormat, outputs: [Output], crop: Crop? = nil,
        highDynamicRange: HighDynamicRange? = nil
    ) throws(ImagingError) -> [EncodedImage] {
        try pictures(
            from: .descriptor(descriptor), format: format, outputs: outputs, crop: crop, orientation: nil,
            highDynamicRange: highDynamicRange)
    }

    /// ``pictures(ofFileAt:format:outputs:crop:)`` of encoded bytes in memory (a RAW file's embedded JPEG), turned
    /// upright by `orientation` (the RAW's EXIF orientation) when given instead of the bytes' own.
    public func pictures(
        ofBytes bytes: [UInt8], format: SourceFormat, outputs: [Output], crop: Crop? = nil, orientation: Int? = nil
    ) throws(ImagingError) -> [EncodedImage] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(ImagingError) in
                try pictures(
                    from: .memory(buffer), format: format, outputs: outputs, crop: crop, orientation: orientation)
            }
        }
        return try result.get()
    }

    /// Where the picture comes from: encoded bytes in a file or in memory, or pixels decoded already.
    enum Input {
        case descriptor(Int32)
        case memory(UnsafeRawBufferPointer)
        case decoded(VipsImageRef)
    }

    /// ``pictures(ofFileAt:format:outputs:crop:)`` of a video: its poster frame, about one second in (10 % of a
    /// clip shorter than ten seconds) and not a black frame when one follows, decoded by FFmpeg from the descriptor
    /// and turned upright by the stream's display matrix.
    public func pictures(ofVideoAt descriptor: Int32, outputs: [Output], crop: Crop? = nil) throws(ImagingError)
        -> [EncodedImage]
    {
        try frameBased(descriptor, outputs: outputs, crop: crop, decode: pd_ffmpeg_poster)
    }

    /// ``pictures(ofFileAt:format:outputs:crop:)`` of a Windows bitmap (BMP), which libvips has no loader safe for
    /// untrusted input for: decoded by FFmpeg's BMP decoder, with the same pixel limit.
    public func pictures(ofBitmapAt descriptor: Int32, outputs: [Output], crop: Crop? = nil) throws(ImagingError)
        -> [EncodedImage]
    {
        // FFmpeg learns a bitmap's size by decoding it: the header is checked against the pixel limit first.
        var header = [UInt8](repeating: 0, count: 26)
        let read = header.withUnsafeMutableBytes { try? FileDescriptor(borrowing: descriptor).readFully(into: $0, at: 0) }
        guard read == header.count, header[0] == 0x42, header[1] == 0x4D else {
            throw .unsupported("not a Windows bitmap (no BM header)")
        }
        func int32(_ at: Int) -> Int {
            Int(Int32(bitPattern: UInt32(header[at]) | UInt32(header[at + 1]) << 8 | UInt32(header[at + 2]) << 16
                | UInt32(header[at + 3]) << 24))
        }
        // An OS/2 bitmap's 12-byte header has 16-bit sides; the others 32-bit ones (a negative height: top-down).
        let (width, height) =
            int32(14) == 12
            ? (Int(header[18]) | Int(header[19]) << 8, Int(header[20]) | Int(header[21]) << 8)
            : (abs(int32(18)), abs(int32(22)))
        guard width > 0, height > 0 else {
            throw .decodeFailed("the bitmap's header declares \(width) × \(height) pixels")
        }
        guard width.multipliedReportingOverflow(by: height).partialValue <= maximumPixels, width <= 1 << 20,
            height <= 1 << 20
        else { throw .tooManyPixels(width: width, height: height, limit: maximumPixels) }
        return try frameBased(descriptor, outputs: outputs, crop: crop, decode: pd_ffmpeg_still)
    }

    private func frameBased(
        _ descriptor: Int32, outputs: [Output], crop: Crop?,
        decode: (Int32, Int64, Int32, UnsafeMutablePointer<pd_video_frame>?, UnsafeMutablePointer<CChar>?, Int) -> Int32
    ) throws(ImagingError) -> [EncodedImage] {
        guard let first = outputs.first else { return [] }
        // Decoded straight to the size the first output needs.
        let box = Int32(clamping: min(8192, Self.decodeSide(for: first, crop: crop)))
        var frame = pd_video_frame()
        var message = [CChar](repeating: 0, count: 512)
        guard decode(descriptor, Int64(maximumPixels), box, &frame, &message, message.count) == 0 else {
            throw .decodeFailed(Self.text(message))
        }
        defer { pd_ffmpeg_free_frame(&frame) }
        try Vips.start()
        guard
            let pixels = pd_vips_image_from_rgb(
                frame.rgb, Int(frame.stride) * Int(frame.height), frame.width, frame.height)
        else { throw .decodeFailed("the video frame: \(Vips.takeError())") }
        let orientation: Int? =
            switch frame.rotation {
            case 90: 6
            case 180: 3
            case 270: 8
            default: nil
            }
        return try pictures(
            from: .decoded(VipsImageRef(pixels)), format: .jpeg, outputs: outputs, crop: crop,
            orientation: orientation)
    }

    /// ``pictures(ofFileAt:format:outputs:crop:)`` of a camera RAW file's sensor data, developed by LibRaw (camera
    /// white balance, sRGB, upright by the file's orientation; at half size when that still covers the first output).
    /// For RAW files without an embedded JPEG preview large enough.
    public func pictures(ofRAWAt descriptor: Int32, outputs: [Output], crop: Crop? = nil) throws(ImagingError)
        -> [EncodedImage]
    {
        guard let first = outputs.first else { return [] }
        let box = Int32(clamping: Self.decodeSide(for: first, crop: crop))
        var image = pd_raw_image()
        var message = [CChar](repeating: 0, count: 512)
        guard pd_libraw_develop(descriptor, Int64(maximumPixels), box, &image, &message, message.count) == 0 else {
            throw .decodeFailed(Self.text(message))
        }
        defer { pd_libraw_free(&image) }
        try Vips.start()
        guard let pixels = pd_vips_image_from_rgb(image.rgb, Int(image.width) * Int(image.height) * 3, image.width, image.height)
        else { throw .decodeFailed("the developed RAW: \(Vips.takeError())") }
        return try pictures(from: .decoded(VipsImageRef(pixels)), format: .jpeg, outputs: outputs, crop: crop, orientation: nil)
    }

    /// A playable preview of the video in the file open at `descriptor`: H.264 in a fragmented MP4, at most
    /// `shortSide` pixels on its short side, its first `maximumSeconds`, the AAC sound kept, the display rotation kept.
    public func playableVideo(ofVideoAt descriptor: Int32, shortSide: Int = 720, maximumSeconds: Double = 3600)
        throws(ImagingError) -> EncodedVideo
    {
        var preview = pd_video_preview()
        var message = [CChar](repeating: 0, count: 512)
        guard
            pd_ffmpeg_preview(
                descriptor, Int64(maximumPixels), Int32(clamping: shortSide), maximumSeconds, &preview, &message,
                message.count) == 0
        else { throw .decodeFailed(Self.text(message)) }
        defer { pd_ffmpeg_free_preview(&preview) }
        let bytes = [UInt8](UnsafeBufferPointer(start: preview.bytes, count: preview.length))
        let turned = preview.rotation == 90 || preview.rotation == 270
        return EncodedVideo(
            bytes: bytes, pixelWidth: Int(turned ? preview.height : preview.width),
            pixelHeight: Int(turned ? preview.width : preview.height), duration: preview.duration)
    }

    /// The longest side a decoder that scales while it decodes (FFmpeg, LibRaw) must keep for `output`: a crop needs
    /// the whole picture larger by as much, and a fill twice as large to leave room for cropping to the box.
    static func decodeSide(for output: Output, crop: Crop?) -> Int {
        let need = Double(max(output.width, output.height)) / min(crop?.width ?? 1, crop?.height ?? 1)
        return max(1, Int(need.rounded(.up)) * (output.fill ? 2 : 1))
    }

    /// A NUL-terminated message FFmpeg's side wrote into `buffer`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Forgets what the decoders said about earlier files (libvips's error buffer, kept warnings, FFmpeg's log), so
    /// that a failure is reported with its own file's words only. Call it before each file.
    public static func forgetMessages() {
        Vips.forgetMessages()
        _ = takeVideoWarnings()
    }

    /// What FFmpeg logged since the last call (warnings about the videos decoded).
    public static func takeVideoWarnings() -> [String] {
        guard let text = pd_ffmpeg_take_log() else { return [] }
        defer { pd_ffmpeg_free_text(text) }
        return String(cString: text).split(whereSeparator: \.isNewline).map(String.init)
    }

    /// ``decodedPictures(from:format:outputs:crop:orientation:highDynamicRange:)``, failing when the decoder had to
    /// make up part of the picture: libjpeg fills what it cannot read with grey and only complains (into libvips's
    /// error buffer, not as an error), so that a JPEG cut short and closed with an end-of-image marker, or with
    /// damaged image data, would come out half grey. Its harmless complaints (stray bytes before a marker) are kept
    /// as warnings.
    private func pictures(
        from input: Input, format: SourceFormat, outputs: [Output], crop: Crop?, orientation: Int?,
        highDynamicRange: HighDynamicRange? = nil
    ) throws(ImagingError) -> [EncodedImage] {
        Vips.forgetComplaints()
        let pictures = try decodedPictures(
            from: input, format: format, outputs: outputs, crop: crop, orientation: orientation,
            highDynamicRange: highDynamicRange)
        let complaints = Vips.takeComplaints()
        if let loss = complaints.first(where: Self.losesImageData) {
            throw .decodeFailed("\(loss); part of the picture is missing")
        }
        Vips.keepWarnings(complaints)
        return pictures
    }

    /// The decoder complaints that mean image data was missing or unreadable and was made up (libjpeg's
    /// `JWRN_HIT_MARKER`, `JWRN_JPEG_EOF`, `JWRN_HUFF_BAD_CODE`, `JWRN_MUST_RESYNC`), as opposed to bytes skipped
    /// around the data (`JWRN_EXTRANEOUS_DATA`).
    static func losesImageData(_ complaint: String) -> Bool {
        let lowered = complaint.lowercased()
        return ["premature end", "bad huffman code", "instead of rst", "file truncated", "truncated"].contains {
            lowered.contains($0)
        }
    }

    private func decodedPictures(
        from input: Input, format: SourceFormat, outputs: [Output], crop: Crop?, orientation: Int?,
        highDynamicRange: HighDynamicRange? = nil
    ) throws(ImagingError) -> [EncodedImage] {
        guard let first = outputs.first else { return [] }
        if let crop {
            guard crop.x >= 0, crop.y >= 0, crop.width > 0, crop.height > 0, crop.x + crop.width <= 1.000001,
                crop.y + crop.height <= 1.000001
            else { throw .decodeFailed("the crop rectangle lies outside the picture") }
        }
        let shrunk = try shrunkImage(
            input, format: format, orientation: orientation, highDynamicRange: highDynamicRange
        ) { width, height in
            guard let crop else {
                return (Int32(clamping: max(1, first.width)), Int32(clamping: max(1, first.height)), first.fill)
            }
            // The whole picture at the scale the crop needs to cover (fill) or fit (fit) the box, never enlarged.
            let across = Double(first.width) / (crop.width * Double(width))
            let down = Double(first.height) / (crop.height * Double(height))
            let scale = min(1, first.fill ? max(across, down) : min(across, down))
            return (
                Int32(clamping: max(1, Int((scale * Double(width)).rounded(.up)))),
                Int32(clamping: max(1, Int((scale * Double(height)).rounded(.up)))), false
            )
        }
        // Several outputs read the decoded picture once each: it is decoded into memory first. One output streams.
        var previous = shrunk
        if outputs.count > 1 {
            guard let decoded = pd_vips_copy_memory(shrunk.pointer) else {
                throw .decodeFailed("decoding: \(Vips.takeError())")
            }
            previous = VipsImageRef(decoded)
        }
        if let crop {
            let (width, height) = (Double(previous.width), Double(previous.height))
            let left = Int32(min(width - 1, (crop.x * width).rounded(.down)))
            let top = Int32(min(height - 1, (crop.y * height).rounded(.down)))
            let across = Int32(max(1, min(width - Double(left), (crop.width * width).rounded())))
            let down = Int32(max(1, min(height - Double(top), (crop.height * height).rounded())))
            previous = try previous.making("cropping") { pd_vips_extract_area($0, $1, left, top, across, down) }
            let (boxWidth, boxHeight) = (Int32(clamping: max(1, first.width)), Int32(clamping: max(1, first.height)))
            previous = try previous.making("shrinking") {
                pd_vips_thumbnail_image($0, $1, boxWidth, boxHeight, first.fill ? 1 : 0, 1)
            }
        }
        var encoded: [EncodedImage] = []
        for (index, output) in outputs.enumerated() {
            if index > 0 {
                let (width, height) = (Int32(clamping: max(1, output.width)), Int32(clamping: max(1, output.height)))
                previous = try previous.making("shrinking") {
                    pd_vips_thumbnail_image($0, $1, width, height, output.fill ? 1 : 0, 1)
                }
            }
            let alpha: Int32 = output.format == .webp ? 1 : 0
            encoded.append(
                try previous.making("converting to sRGB") { pd_vips_to_srgb8($0, $1, alpha) }
                    .encoded(as: output.format, quality: output.quality))
        }
        return encoded
    }

    /// One image of the file open at `descriptor`: fitting in `width` × `height` (or filling it, cropped to the
    /// centre, with `fill`), never enlarged.
    public func image(
        ofFileAt descriptor: Int32, format source: SourceFormat, width: Int, height: Int, fill: Bool = false,
        format: EncodedImage.Format = .jpeg, quality: Int = 85
    ) throws(ImagingError) -> EncodedImage {
        let output = Output(width: width, height: height, fill: fill, format: format, quality: quality)
        return try pictures(ofFileAt: descriptor, format: source, outputs: [output])[0]
    }

    /// What the decoders logged since the last call (libvips, libheif, libtiff warnings about the files decoded):
    /// kept from stderr, for the caller's log.
    public static func takeWarnings() -> [String] { Vips.takeWarnings() }

    /// Decodes an encoded image (a derivative, or any image bytes) to 8-bit sRGB RGBA.
    public func decode(_ bytes: [UInt8]) throws(ImagingError) -> DecodedImage {
        try Vips.start()
        let result = bytes.withUnsafeBytes { buffer -> Result<DecodedImage, ImagingError> in
            guard let pointer = pd_vips_image_from_buffer(buffer.baseAddress, buffer.count) else {
                return .failure(.unsupported(Vips.takeError()))
            }
            return Result { () throws(ImagingError) in try VipsImageRef(pointer).decodedRGBA() }
        }
        return try result.get()
    }

    /// The picture of `input`, upright, shrunk to fit (or fill) the box `box` gives for the upright picture's size
    /// (a crop needs the whole picture larger): the header read first and checked against the pixel limit, then
    /// decoded in one pass (a JPEG shrunk while decoded). Pixels decoded elsewhere are only turned and shrunk.
    private func shrunkImage(
        _ input: Input, format: SourceFormat, orientation override: Int?, highDynamicRange: HighDynamicRange? = nil,
        box: (_ uprightWidth: Int, _ uprightHeight: Int) -> (Int32, Int32, Bool)
    ) throws(ImagingError) -> VipsImageRef {
        try Vips.start()
        let madeSource: OpaquePointer?
        switch input {
        case .descriptor(let descriptor): madeSource = pd_vips_source(descriptor)
        case .memory(let buffer): madeSource = pd_vips_source_memory(buffer.baseAddress, buffer.count)
        case .decoded(let image):
            // Pixels decoded elsewhere (a video frame): only turned and shrunk here.
            var image = image
            let turned = override.map { (5...8).contains($0) } ?? false
            let (width, height, fill) = box(turned ? image.height : image.width, turned ? image.width : image.height)
            if let override, (2...8).contains(override) {
                image = try image.making("orienting") { pd_vips_with_orientation($0, $1, Int32(override)) }
            }
            return try image.making("shrinking") { pd_vips_thumbnail_image($0, $1, width, height, fill ? 1 : 0, 0) }
        }
        guard let source = madeSource else { throw .decodeFailed("reading: \(Vips.takeError())") }
        defer { pd_vips_unref(UnsafeMutableRawPointer(source)) }
        guard let headerPointer = pd_vips_load(source, format.rawValue, 1) else { throw .unsupported(Vips.takeError()) }
        let header = VipsImageRef(headerPointer)
        guard header.width * header.height <= maximumPixels else {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maximumPixels)
        }
        if let highDynamicRange {
            let orientation = Int(pd_vips_orientation(header.pointer))
            let turned = (5...8).contains(orientation)
            let (width, height, fill) = box(turned ? header.height : header.width, turned ? header.width : header.height)
            let mapped = try toneMapped(
                header, width: Int(turned ? height : width), height: Int(turned ? width : height), fill: fill,
                highDynamicRange)
            return try shrunkImage(.decoded(mapped), format: format, orientation: orientation, box: box)
        }
        var image = header
        let orientation = override.flatMap { (1...8).contains($0) ? $0 : nil } ?? Int(pd_vips_orientation(header.pointer))
        let turned = (5...8).contains(orientation)
        let (width, height, fill) = box(turned ? header.height : header.width, turned ? header.width : header.height)
        let shrink = Self.jpegShrink(
            width: header.width, height: header.height, orientation: orientation,
            box: (Int(width), Int(height)), fill: fill)
        if shrink > 1, format == .jpeg {
            guard let shrunk = pd_vips_load(source, format.rawValue, Int32(shrink)) else { throw .decodeFailed(Vips.takeError()) }
            image = VipsImageRef(shrunk)
        }
        if let override, (1...8).contains(override) {
            image = try image.making("orienting") { pd_vips_with_orientation($0, $1, Int32(override)) }
        }
        return try image.making("shrinking") { pd_vips_thumbnail_image($0, $1, width, height, fill ? 1 : 0, 0) }
    }

    /// `image`'s HDR values, shrunk to fit (or cover, with `fill`) `width` × `height` as 16-bit RGB, tone-mapped to
    /// 8-bit sRGB by FFmpeg's zscale and tonemap.
    private func toneMapped(
        _ image: VipsImageRef, width: Int, height: Int, fill: Bool, _ range: HighDynamicRange
    ) throws(ImagingError) -> VipsImageRef {
        var (shrunkWidth, shrunkHeight, length): (Int32, Int32, Int) = (0, 0, 0)
        guard
            let pixels = pd_vips_rgb16_pixels(
                image.pointer, Int32(clamping: max(1, width)), Int32(clamping: max(1, height)), fill ? 1 : 0,
                &shrunkWidth, &shrunkHeight, &length)
        else { throw .decodeFailed("decoding the HDR photo: \(Vips.takeError())") }
        defer { pd_vips_free(pixels) }
        guard length >= Int(shrunkWidth) * Int(shrunkHeight) * 6 else {
            throw .decodeFailed("decoding the HDR photo: \(length) bytes of pixels for \(shrunkWidth) × \(shrunkHeight)")
        }
        var frame = pd_video_frame()
        var message = [CChar](repeating: 0, count: 512)
        guard
            pd_ffmpeg_tonemap_rgb16(
                pixels.assumingMemoryBound(to: UInt16.self), shrunkWidth, shrunkHeight, Int32(range.primaries),
                Int32(range.transfer), &frame, &message, message.count) == 0
        else { throw .decodeFailed(Self.text(message)) }
        defer { pd_ffmpeg_free_frame(&frame) }
        guard
            let mapped = pd_vips_image_from_rgb(
                frame.rgb, Int(frame.stride) * Int(frame.height), frame.width, frame.height)
        else { throw .decodeFailed("the tone-mapped photo: \(Vips.takeError())") }
        return VipsImageRef(mapped)
    }

    /// The largest JPEG DCT scaling (1, 2, 4 or 8) that keeps the image at least as large as the box needs: the
    /// box's sides turned with the image when its orientation (5–8) turns it a quarter.
    static func jpegShrink(width: Int, height: Int, orientation: Int, box: (Int, Int), fill: Bool) -> Int {
        let (boxWidth, boxHeight) = (5...8).contains(orientation) ? (box.1, box.0) : box
        let across = Double(width) / Double(max(1, boxWidth))
        let down = Double(height) / Double(max(1, boxHeight))
        let factor = fill ? min(across, down) : max(across, down)
        return [8, 4, 2].first { Double($0) <= factor } ?? 1
    }
}
