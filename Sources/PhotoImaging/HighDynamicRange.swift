/// What makes a photo high dynamic range: its values follow a PQ or HLG transfer (ITU-T H.273 codes 16 and 18), over
/// the given primaries (9: BT.2020). Such a photo is tone-mapped to 8-bit sRGB before it is shown, like an HDR video.
public struct HighDynamicRange: Sendable, Equatable {
    public var primaries: Int
    public var transfer: Int

    public init(primaries: Int, transfer: Int) {
        self.primaries = primaries
        self.transfer = transfer
    }
}
