import FoundationEssentials
import MediaProbe
import PhotoImaging
import PhotodropSystem
import Rendering

/// `photodrop render-helper --socket N`: the render helper process, which photodrop starts itself (``RenderHelper``)
/// and talks to over the socket at descriptor N. It decodes photos with libvips, one file at a time, from the
/// descriptor that comes with each request, and never opens a path; it ends when the socket closes. Not a command
/// for people: the command line does not list it.
///
/// It runs with a lower priority than ingestion and an address-space limit, so that a hostile file that gets past
/// the pixel limit fails to allocate instead of exhausting the machine's memory. libvips is loaded here only (with
/// dlopen): every other photodrop process starts without it.
public enum RenderWorker {
    public static let command = "render-helper"

    public static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, arguments[1] == "--socket", let socket = Int32(arguments[2]), socket >= 0 else {
            try? FileSystem.writeAll(
                "photodrop render-helper is started by photodrop itself ('--socket N'); it is not meant to be run by "
                    + "hand.\n", to: .standardError, path: nil)
            return 2
        }
        // Decoders of untrusted files need no privilege: under systemd the helper inherits watch's ambient
        // CAP_CHOWN/CAP_FOWNER/CAP_LEASE (and, run as root, all of root's), which it drops before reading anything.
        dropAllCapabilities()
        SystemProcess.lowerPriority(by: 10)
        SystemProcess.limitAddressSpace(to: 8 << 30)
        // A test hook, not a feature: a fault no real file is known to cause in Debian's libvips. When set, a file
        // that starts with these bytes makes the helper crash the way a decoder would (SIGSEGV), so that tests see
        // photodrop restart it and record the file's failure.
        let crashMarker = ProcessInfo.processInfo.environment["PHOTODROP_RENDER_TEST_CRASH_MARKER"].map {
            Array($0.utf8)
        }
        var memory = HeapReturn()
        return RenderServer.serve(socket: FileDescriptor(owning: socket), idle: { memory.whenIdle() }) { request, descriptor in
            if let crashMarker {
                var head = [UInt8](repeating: 0, count: crashMarker.count)
                let read = head.withUnsafeMutableBytes { try? descriptor.readFully(into: $0, at: 0) }
                if read == head.count, head == crashMarker { Signal.segmentationFault.raise() }
            }
            defer { memory.afterFile() }
            return render(request, descriptor: descriptor)
        }
    }

    /// When the helper hands its freed heap back to the system (glibc's `malloc_trim`). A decode of a large image
    /// leaves hundreds of megabytes freed but held by glibc's arenas (libheif decodes on threads of its own); trimming
    /// returns them, but costs the next decode its page faults again: after every phone-sized JPEG it put a quarter
    /// of a thumbnail batch's time into the kernel. So a file is followed by a trim only when it left the helper
    /// ``grownBytes`` above where it stood after the last one (a large decode); otherwise the helper trims when no
    /// next file has come for a moment and it holds more than ``idleBytes``.
    struct HeapReturn {
        static let grownBytes = 32 << 20
        static let idleBytes = 64 << 20
        /// Resident bytes after the last trim (or at the start).
        private var floor = HeapReturn.resident() ?? 0

        mutating func afterFile() {
            guard let now = Self.resident(), now - floor > Self.grownBytes else { return }
            trim()
        }

        mutating func whenIdle() {
            guard let now = Self.resident(), now > Self.idleBytes else { return }
            trim()
        }

        private mutating func trim() {
            _ = trimHeap()
            floor = Self.resident() ?? floor
        }

        /// The helper's resident memory (`/proc/self/statm`).
        static func resident() -> Int? {
            guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
            let fields = statm.split(separator: " ")
            guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
            return pages * SystemProcess.pageSize
        }
    }

    /// A video's poster frame (FFmpeg), at the request's sizes.
    static func renderVideo(_ request: RenderRequest, descriptor: FileDescriptor)
        -> (pictures: [RenderedPicture], failure: String?, warnings: [String])
    {
        let renderer = DerivativeRenderer(maximumPixels: request.maximumPixels)
        if let output = request.outputs.first, output.mimeType == "video/mp4" {
            do throws(ImagingError) {
                let video = try renderer.playableVideo(
                    ofVideoAt: descriptor.rawValue, shortSide: output.width, maximumSeconds: request.maximumSeconds ?? 3600)
                let picture = RenderedPicture(
                    mimeType: video.mimeType, width: video.pixelWidth, height: video.pixelHeight, data: Data(video.bytes))
                return ([picture], nil, DerivativeRenderer.takeVideoWarnings())
            } catch {
                return ([], error.description, DerivativeRenderer.takeVideoWarnings())
            }
        }
        guard case .success(let crop) = crop(of: request) else { return ([], CropProblem().description, []) }
        do throws(ImagingError) {
            let pictures = try renderer.pictures(ofVideoAt: descriptor.rawValue, outputs: outputs(of: request), crop: crop)
            return (pictures.map(rendered), nil, DerivativeRenderer.takeVideoWarnings())
        } catch {
            return ([], error.description, DerivativeRenderer.takeVideoWarnings())
        }
    }

    /// A Windows bitmap, decoded by FFmpeg (libvips has no loader for it that is safe for untrusted input).
    static func renderBitmap(_ request: RenderRequest, descriptor: FileDescriptor)
        -> (pictures: [RenderedPicture], failure: String?, warnings: [String])
    {
        guard case .success(let crop) = crop(of: request) else { return ([], CropProblem().description, []) }
        do throws(ImagingError) {
            let pictures = try DerivativeRenderer(maximumPixels: request.maximumPixels)
                .pictures(ofBitmapAt: descriptor.rawValue, outputs: outputs(of: request), crop: crop)
            return (pictures.map(rendered), nil, DerivativeRenderer.takeVideoWarnings())
        } catch {
            return ([], error.description, DerivativeRenderer.takeVideoWarnings())
        }
    }

    /// The request's crop (x, y, width, height), nil for none; or what is wrong with it.
    static func crop(of request: RenderRequest) -> Result<DerivativeRenderer.Crop?, CropProblem> {
        guard let rect = request.crop else { return .success(nil) }
        guard rect.count == 4 else { return .failure(CropProblem()) }
        return .success(DerivativeRenderer.Crop(x: rect[0], y: rect[1], width: rect[2], height: rect[3]))
    }

    struct CropProblem: Error {
        let description = "a crop needs four numbers (x, y, width, height)"
    }

    static func outputs(of request: RenderRequest) -> [DerivativeRenderer.Output] {
        request.outputs.map { output in
            DerivativeRenderer.Output(
                width: output.width, height: output.height, fill: output.fill,
                format: output.mimeType == "image/webp" ? .webp : .jpeg, quality: output.quality)
        }
    }

    static func rendered(_ image: EncodedImage) -> RenderedPicture {
        RenderedPicture(
            mimeType: image.format.mimeType, width: image.pixelWidth, height: image.pixelHeight, data: Data(image.bytes))
    }

    /// The largest embedded JPEG a RAW file may hand over (a camera's full-size preview is a few MB).
    static let maximumPreviewBytes: Int64 = 64 << 20

    /// Reads EXIF orientations of RAW files (their embedded JPEGs rarely carry one).
    nonisolated(unsafe) static var prober: MediaProber?

    static func render(_ request: RenderRequest, descriptor: FileDescriptor)
        -> (pictures: [RenderedPicture], failure: String?, warnings: [String])
    {
        // DerivativeRenderer.forgetMessages()
        let mimeType = request.mimeType ?? "unknown type"
        if mimeType.hasPrefix("video/") {
            return renderVideo(request, descriptor: descriptor)
        }
        var warnings: [String] = []
        if mimeType == "image/bmp" || mimeType == "image/x-ms-bmp" {
            return renderBitmap(request, descriptor: descriptor)
        }
        var embedded: (bytes: [UInt8], orientation: Int?)?
        if SourceFormat(mimeType: mimeType) == nil, mimeType.hasPrefix("image/x-") {
            // A camera RAW: its largest embedded JPEG, turned as the RAW says, when it is as large as the first
            // picture wanted; otherwise its sensor data, developed by LibRaw (the small JPEG when that fails).
            let preview = EmbeddedPreviewLocator.largestJPEG(in: descriptor).flatMap {
                $0.length <= maximumPreviewBytes ? $0 : nil
            }
            let wanted = request.outputs.first.map { max($0.width, $0.height) } ?? 0
            var rawFailure: String?
            if preview.map({ max($0.width, $0.height) < wanted }) ?? true {
                switch developRAW(request, descriptor: descriptor) {
                case .success(let pictures): return (pictures, nil, [])
                case .failure(let failure): rawFailure = failure.description
                }
            }
            guard let preview else {
                return (
                    [],
                    "this RAW file (\(mimeType)) has no embedded JPEG preview, and its sensor data cannot be developed: "
                        + (rawFailure ?? "no detail"), []
                )
            }
            var bytes = [UInt8](repeating: 0, count: Int(preview.length))
            let read = bytes.withUnsafeMutableBytes { try? descriptor.readFully(into: $0, at: preview.offset) }
            guard read == bytes.count else { return ([], "the RAW file's embedded preview cannot be read", []) }
            if prober == nil { prober = try? MediaProber() }
            let orientation = (try? descriptor.status()).flatMap { info in
                (try? prober?.probe(fileDescriptor: descriptor, fileSize: info.size, prefix: nil))?.metadata.orientation
            }
            embedded = (bytes, orientation)
            if let rawFailure {
                warnings.append("its sensor data could not be developed (\(rawFailure)); its smaller embedded JPEG is shown")
            }
        }
        guard let format = embedded != nil ? .jpeg : SourceFormat(mimeType: mimeType) else {
            return ([], "not an image format photodrop decodes (\(mimeType))", [])
        }
        if embedded == nil, let damage = structuralDamage(descriptor) {
            // A header that lies about the data behind it (a small image's data under a huge frame header) decodes
            // as a grey field with only a warning; the probe's structural check says so first.
            return ([], damage, [])
        }
        let renderer = DerivativeRenderer(maximumPixels: request.maximumPixels)
        let outputs = outputs(of: request)
        guard case .success(let crop) = crop(of: request) else { return ([], CropProblem().description, []) }
        do throws(ImagingError) {
            let pictures: [EncodedImage]
            if let embedded {
                pictures = try renderer.pictures(
                    ofBytes: embedded.bytes, format: .jpeg, outputs: outputs, crop: crop,
                    orientation: embedded.orientation)
            } else {
                // A 10-bit PQ or HLG HEIF/AVIF is tone-mapped; its colour description is in its `colr` box.
                let colour = format == .heif ? HEIFColourReader.colour(in: descriptor) : nil
                let range = colour.flatMap {
                    $0.isHighDynamicRange ? HighDynamicRange(primaries: $0.primaries, transfer: $0.transfer) : nil
                }
                pictures = try renderer.pictures(
                    ofFileAt: descriptor.rawValue, format: format, outputs: outputs, crop: crop, highDynamicRange: range)
            }
            return (pictures.map(rendered), nil, warnings + DerivativeRenderer.takeWarnings())
        } catch {
            return ([], error.description, warnings + DerivativeRenderer.takeWarnings())
        }
    }

    /// What the probe finds structurally wrong with the file (cut short, or holding less data than its header
    /// declares), if anything.
    static func structuralDamage(_ descriptor: FileDescriptor) -> String? {
        if prober == nil { prober = try? MediaProber() }
        guard let info = try? descriptor.status(),
            let result = try? prober?.probe(fileDescriptor: descriptor, fileSize: info.size, prefix: nil),
            result.rejection == .corrupt
        else { return nil }
        return "the file is damaged (\(result.message)); it is kept as it is, without pictures"
    }

    /// The pictures of a RAW file's sensor data, developed by LibRaw.
    static func developRAW(_ request: RenderRequest, descriptor: FileDescriptor) -> Result<[RenderedPicture], ImagingError> {
        guard case .success(let crop) = crop(of: request) else { return .failure(.decodeFailed(CropProblem().description)) }
        do throws(ImagingError) {
            let renderer = DerivativeRenderer(maximumPixels: request.maximumPixels)
            return .success(try renderer.pictures(ofRAWAt: descriptor.rawValue, outputs: outputs(of: request), crop: crop).map(rendered))
        } catch {
            return .failure(error)
        }
    }
}
