import PhotoCatalog
import PhotodropSystem

/// Which stored picture answers a request: handed out as it is (``direct``), or resized from (``renderFrom``; nil
/// for the original), and the fast degraded result an opportunistic request gets first.
struct ImagePlan {
    /// A stored derivative's file and kind, and the descriptor that found the file intact (read from, not opened
    /// again).
    struct Stored: Equatable {
        var kind: DerivativeKind
        var file: Derivative.File
        var descriptor: FileDescriptor

        static func == (lhs: Stored, rhs: Stored) -> Bool { lhs.kind == rhs.kind && lhs.file == rhs.file }
    }

    var direct: Stored?
    var renderFrom: Stored?
    var degradedFirst: Stored?

    /// `stored` are the intact derivatives made from the asset's current original, smallest first.
    init(
        stored: [Stored], target: PixelSize, mode: ContentMode,
        options: ImageRequestOptions
    ) {
        // A crop shows part of the picture at the target size: the whole picture must be larger by as much.
        var needed = target
        if let crop = options.normalizedCropRect, target != .maximum {
            needed = PixelSize(
                width: Int((Double(target.width) / crop.width).rounded(.up)),
                height: Int((Double(target.height) / crop.height).rounded(.up)))
        }
        let covering = stored.first { Self.covers($0, target: needed, mode: mode) }
        let largest = stored.last
        let cropped = options.normalizedCropRect != nil
        switch options.deliveryMode {
        case .fastFormat where !cropped:
            // Fast: the nearest stored picture as it is, even when it is smaller than the target.
            direct = covering ?? largest
        default:
            if cropped || target == .maximum {
                renderFrom = cropped ? covering : nil
            } else {
                switch options.resizeMode {
                case .none:
                    direct = covering
                case .fast:
                    if let covering, Self.scale(of: covering, target: target, mode: mode) >= 0.75 { direct = covering }
                case .exact:
                    if let covering, Self.matches(covering, target: target, mode: mode) { direct = covering }
                }
                if direct == nil { renderFrom = covering }
            }
            if let smallest = stored.first, direct != smallest { degradedFirst = smallest }
        }
    }

    /// The scale from the derivative to the picture the target needs (≤ 1 when the derivative is large enough).
    static func scale(of stored: Stored, target: PixelSize, mode: ContentMode) -> Double {
        let across = Double(target.width) / Double(max(1, stored.file.pixelWidth))
        let down = Double(target.height) / Double(max(1, stored.file.pixelHeight))
        return mode == .aspectFit ? min(across, down) : max(across, down)
    }

    /// Whether the derivative is large enough: the target needs no more pixels than it has, or it is the whole
    /// original (smaller than its kind's box, so nothing larger exists).
    static func covers(_ stored: Stored, target: PixelSize, mode: ContentMode) -> Bool {
        if target == .maximum { return false }
        if max(stored.file.pixelWidth, stored.file.pixelHeight) < stored.kind.longestSide { return true }
        return scale(of: stored, target: target, mode: mode) <= 1.0001
    }

    /// Whether the derivative already is the exact answer: fitting the target with one side equal, or (fill) the
    /// target's size itself.
    static func matches(_ stored: Stored, target: PixelSize, mode: ContentMode) -> Bool {
        let file = stored.file
        switch mode {
        case .aspectFit:
            return file.pixelWidth <= target.width && file.pixelHeight <= target.height
                && (file.pixelWidth == target.width || file.pixelHeight == target.height
                    || scale(of: stored, target: target, mode: mode) >= 1)
        case .aspectFill:
            return file.pixelWidth == target.width && file.pixelHeight == target.height
        }
    }
}
