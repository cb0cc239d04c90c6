import CVips
import FoundationEssentials
import PhotodropSystem

/// libvips, started once per process (untrusted loaders blocked, no operation cache, one thread per pipeline).
enum Vips {
    private static let startFailure: ImagingError? =
        pd_vips_start("photodrop") == 0 ? nil : .unavailable(takeError())

    static func start() throws(ImagingError) {
        if let startFailure { throw startFailure }
    }

    /// Forgets what earlier files left behind (libvips's error buffer, kept warnings), so that nothing said about
    /// one file is reported with the next.
    static func forgetMessages() { pd_vips_forget_messages() }

    /// Empties libvips's error buffer before a decode, so that what is in it afterwards is this decode's.
    static func forgetComplaints() { pd_vips_forget_messages_keeping_warnings() }

    /// What a decode that succeeded left in libvips's error buffer (a decoder's warnings, which libvips writes there
    /// rather than failing), one per line; clears it.
    static func takeComplaints() -> [String] {
        guard let text = pd_vips_take_error() else { return [] }
        defer { pd_vips_free_text(text) }
        return String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty }
    }

    /// Adds `lines` to the warnings ``takeWarnings()`` returns.
    static func keepWarnings(_ lines: [String]) {
        for line in lines { pd_vips_add_warning(line) }
    }

    /// What libvips and its libraries logged since the last call (warnings about the file being decoded).
    static func takeWarnings() -> [String] {
        guard let text = pd_vips_take_warnings() else { return [] }
        defer { pd_vips_free_text(text) }
        return String(cString: text).split(whereSeparator: \.isNewline).map(String.init)
    }

    /// What libvips said about the last failure, on one line; clears it.
    static func takeError() -> String {
        guard let text = pd_vips_take_error() else { return "no detail" }
        defer { pd_vips_free_text(text) }
        let lines = String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        let joined = lines.filter { !$0.isEmpty }.joined(separator: "; ")
        return joined.isEmpty ? "no detail" : joined
    }
}

/// A VipsImage this code owns one reference of.
final class VipsImageRef {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { pd_vips_unref(UnsafeMutableRawPointer(pointer)) }

    var width: Int { Int(pd_vips_width(pointer)) }
    var height: Int { Int(pd_vips_height(pointer)) }
    var hasAlpha: Bool { pd_vips_has_alpha(pointer) != 0 }
    /// The loader that read it (`jpegload_source`, `pngload_source`, …).
    var loader: String? { pd_vips_loader(pointer).map { String(cString: $0) } }

    /// Runs a libvips operation that makes one image from this one.
    func making(_ action: String, _ operation: (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32)
        throws(ImagingError) -> VipsImageRef
    {
        var out: OpaquePointer?
        guard operation(pointer, &out) == 0, let out else { throw .decodeFailed("\(action): \(Vips.takeError())") }
        return VipsImageRef(out)
    }

    /// libwebp's effort for thumbnails: 2 instead of libvips's default 4, since half of the thumbnails' time was in
    /// libwebp, for slightly larger files (BENCHMARKS.md, "Thumbnails and previews", has the trade).
    static let webpEffort: Int32 = 2

    /// Encodes as JPEG or WebP (metadata stripped: the image is sRGB and upright already).
    func encoded(as format: EncodedImage.Format, quality: Int) throws(ImagingError) -> EncodedImage {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let result =
            format == .jpeg
            ? pd_vips_jpegsave(pointer, &buffer, &length, Int32(quality))
            : pd_vips_webpsave(pointer, &buffer, &length, Int32(quality), Self.webpEffort)
        guard result == 0, let buffer else { throw .decodeFailed("saving as \(format.rawValue): \(Vips.takeError())") }
        defer { pd_vips_free(buffer) }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
        return EncodedImage(bytes: bytes, format: format, pixelWidth: width, pixelHeight: height)
    }

    /// The pixels as 8-bit sRGB RGBA.
    func decodedRGBA() throws(ImagingError) -> DecodedImage {
        let rgba = try making("converting to sRGB") { pd_vips_to_srgb8($0, $1, 2) }
        var length = 0
        guard let memory = pd_vips_pixels(rgba.pointer, &length) else {
            throw .decodeFailed("decoding: \(Vips.takeError())")
        }
        defer { pd_vips_free(memory) }
        let pixels = [UInt8](UnsafeRawBufferPointer(start: memory, count: length))
        return DecodedImage(pixelWidth: rgba.width, pixelHeight: rgba.height, rgba: pixels)
    }
}
