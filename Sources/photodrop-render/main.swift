import Foundation
import PhotoImaging
import Rendering

// photodrop's render helper: decodes photos (libvips) for the process that started it, one file at a time, from the
// descriptor that comes with each request. It never opens a path. `photodrop` starts it (see RenderHelper) with
// `--socket 3`; it ends when that socket closes.
//
// It runs with a lower priority than ingestion and an address-space limit, so that a hostile file that gets past
// the pixel limit fails to allocate instead of exhausting the machine's memory.

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[1] == "--socket", let socket = Int32(arguments[2]), socket >= 0 else {
    FileHandle.standardError.write(
        Data("photodrop-render is started by photodrop ('--socket N'); it is not meant to be run by hand.\n".utf8))
    exit(2)
}

_ = nice(10)
var limit = rlimit(rlim_cur: 8 << 30, rlim_max: 8 << 30)
_ = setrlimit(Int32(RLIMIT_AS.rawValue), &limit)

// A test hook, not a feature: a fault no real file is known to cause in Debian's libvips. When set, a file that starts
// with these bytes makes the helper crash the way a decoder would (SIGSEGV), so that tests see photodrop restart it.
let crashMarker = ProcessInfo.processInfo.environment["PHOTODROP_RENDER_TEST_CRASH_MARKER"].map { Array($0.utf8) }

let status = RenderServer.serve(socket: socket) { request, descriptor in
    if let crashMarker {
        var head = [UInt8](repeating: 0, count: crashMarker.count)
        if pread(descriptor, &head, head.count, 0) == head.count, head == crashMarker { raise(SIGSEGV) }
    }
    let renderer = DerivativeRenderer(maximumPixels: request.maximumPixels)
    let outputs = request.outputs.map { output in
        DerivativeRenderer.Output(
            width: output.width, height: output.height, fill: output.fill,
            format: output.mimeType == "image/webp" ? .webp : .jpeg, quality: output.quality)
    }
    do throws(ImagingError) {
        let pictures = try renderer.pictures(ofFileAt: descriptor, outputs: outputs)
        return (
            pictures.map {
                RenderedPicture(mimeType: $0.format.mimeType, width: $0.pixelWidth, height: $0.pixelHeight, data: Data($0.bytes))
            }, nil, []
        )
    } catch {
        return ([], error.description, [])
    }
}
exit(status)
