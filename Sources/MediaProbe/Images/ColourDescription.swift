/// How an image's or a video's pixel values are to be read, as the code points of ITU-T H.273 that HEIF's `colr`
/// box (type `nclx`), AV1 and HEVC carry: its colour primaries, its transfer characteristics and its matrix.
public struct ColourDescription: Sendable, Equatable {
    /// 1: BT.709 (sRGB's), 9: BT.2020, 12: Display P3 (SMPTE EG 432-1).
    public var primaries: Int
    /// 1 or 13: SDR (BT.709, sRGB), 16: PQ (SMPTE ST 2084), 18: HLG (ARIB STD-B67).
    public var transfer: Int
    /// 0: RGB, 1: BT.709, 6: BT.601, 9: BT.2020 non-constant luminance.
    public var matrix: Int
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// Whether the values are high dynamic range (PQ or HLG): shown on an SDR screen only after tone mapping.
    public var isHighDynamicRange: Bool { transfer == 16 || transfer == 18 }
}
