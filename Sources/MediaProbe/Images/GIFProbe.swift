/// Probes a GIF by walking its blocks to the trailer, counting frames and adding up frame delays.
enum GIFProbe {
    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        var metadata = MediaMetadata(container: "gif")
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated("GIF \(message)", mime: "image/gif", ext: "gif", metadata: metadata)
        }
        func broken(_ message: String) -> ProbeResult {
            .rejected(
                .corrupt, message: "not a valid GIF: \(message)", mime: "image/gif", fileExtension: "gif",
                metadata: metadata)
        }
        var r = SequentialReader(source, at: 6)
        guard let w = try r.u16le(), let h = try r.u16le(), let flags = try r.u8(), try r.skip(2) else {
            return truncated("the file ends inside the screen descriptor")
        }
        if w > 0, h > 0 {
            metadata.pixelWidth = Int(w)
            metadata.pixelHeight = Int(h)
        }
        if flags & 0x80 != 0 {
            guard try r.skip(3 << (Int(flags & 7) + 1)) else {
                return truncated("the file ends inside the color table")
            }
        }
        var frames = 0
        var centiseconds = 0
        var pendingDelay = 0
        while true {
            guard let introducer = try r.u8() else {
                return truncated("the file ends after \(frames) frame(s), before the trailer (0x3B)")
            }
            switch introducer {
            case 0x2C:
                guard try r.skip(8), let local = try r.u8() else {
                    return truncated("the file ends inside the descriptor of frame \(frames + 1)")
                }
                if local & 0x80 != 0 {
                    guard try r.skip(3 << (Int(local & 7) + 1)) else {
                        return truncated("the file ends inside the color table of frame \(frames + 1)")
                    }
                }
                guard try r.skip(1), try skipSubBlocks(&r) else {
                    return truncated("the file ends inside the image data of frame \(frames + 1)")
                }
                frames += 1
                centiseconds += pendingDelay
                pendingDelay = 0
            case 0x21:
                guard let label = try r.u8() else { return truncated("the file ends inside an extension") }
                if label == 0xF9 {
                    guard let size = try r.u8() else { return truncated("the file ends inside an extension") }
                    if size >= 4 {
                        guard try r.skip(1), let delay = try r.u16le(), try r.skip(Int64(size) - 3) else {
                            return truncated("the file ends inside an extension")
                        }
                        pendingDelay = Int(delay)
                    } else {
                        guard try r.skip(Int64(size)) else { return truncated("the file ends inside an extension") }
                    }
                }
                guard try skipSubBlocks(&r) else { return truncated("the file ends inside an extension") }
            case 0x3B:
                guard frames > 0 else { return broken("the GIF holds no image") }
                metadata.frameCount = frames
                metadata.isAnimated = frames > 1
                if frames > 1, centiseconds > 0 { metadata.duration = Double(centiseconds) / 100 }
                let text = frames > 1 ? "animated GIF\(metadata.sizeText), \(frames) frames" : "GIF\(metadata.sizeText)"
                return .accepted(.gif, message: text, mime: "image/gif", fileExtension: "gif", metadata: metadata)
            default:
                return broken(
                    "unexpected byte 0x\(String(introducer, radix: 16)) at offset \(r.offset - 1) where a block "
                        + "should start")
            }
        }
    }

    /// Skips data sub-blocks up to and including the zero-length terminator; false at the end of the file.
    private static func skipSubBlocks(_ r: inout SequentialReader) throws(ProbeError) -> Bool {
        while true {
            guard let length = try r.u8() else { return false }
            if length == 0 { return true }
            guard try r.skip(Int64(length)) else { return false }
        }
    }
}
