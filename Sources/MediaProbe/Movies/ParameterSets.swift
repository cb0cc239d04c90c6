/// The picture size a video stream really has, read from its sequence parameter set (SPS) in the sample entry's
/// decoder configuration (`avcC` for H.264, `hvcC` for HEVC): the size the decoder produces, cropped as the stream
/// says. A container's own width and height (the sample entry's, the track header's) are only claims; where they
/// disagree with the SPS, the SPS is what plays.
enum ParameterSets {
    /// The most pixels per side a decoded size may have (H.264 level 6.2 and HEVC level 6.2 stay far below).
    static let maximumSide = 65_536

    /// The cropped size of the first SPS in an `avcC` box's payload; nil when it cannot be read.
    static func avcPictureSize(_ config: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        let c = Array(config)
        guard c.count >= 8, c[0] == 1, c[5] & 0x1F >= 1 else { return nil }
        let length = Int(c[6]) << 8 | Int(c[7])
        guard length >= 2, 8 + length <= c.count, c[8] & 0x1F == 7 else { return nil }
        var bits = BitReader(rbsp: c[9..<(8 + length)])
        return avcSPS(&bits)
    }

    /// The cropped size of the first SPS (NAL unit type 33) in an `hvcC` box's payload; nil when it cannot be read.
    static func hevcPictureSize(_ config: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        let c = Array(config)
        guard c.count >= 23, c[0] == 1 else { return nil }
        var i = 23
        for _ in 0..<Int(c[22]) {
            guard i + 3 <= c.count else { return nil }
            let type = c[i] & 0x3F
            let count = Int(c[i + 1]) << 8 | Int(c[i + 2])
            i += 3
            for _ in 0..<count {
                guard i + 2 <= c.count else { return nil }
                let length = Int(c[i]) << 8 | Int(c[i + 1])
                i += 2
                guard i + length <= c.count else { return nil }
                if type == 33, length > 2 {
                    var bits = BitReader(rbsp: c[(i + 2)..<(i + length)])
                    return hevcSPS(&bits)
                }
                i += length
            }
        }
        return nil
    }

    // MARK: H.264 (ITU-T H.264 7.3.2.1.1)

    private static func avcSPS(_ r: inout BitReader) -> (width: Int, height: Int)? {
        guard let profile = r.bits(8), r.skip(16), r.ue() != nil else { return nil }
        var chromaFormat = 1
        var separatePlanes = false
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let format = r.ue(), format <= 3 else { return nil }
            chromaFormat = format
            if format == 3 {
                guard let flag = r.bits(1) else { return nil }
                separatePlanes = flag == 1
            }
            guard r.ue() != nil, r.ue() != nil, r.skip(1), let scalingPresent = r.bits(1) else { return nil }
            if scalingPresent == 1 {
                for list in 0..<(chromaFormat != 3 ? 8 : 12) {
                    guard let present = r.bits(1) else { return nil }
                    if present == 1, !skipScalingList(&r, size: list < 6 ? 16 : 64) { return nil }
                }
            }
        }
        guard r.ue() != nil, let pocType = r.ue() else { return nil }
        switch pocType {
        case 0:
            guard r.ue() != nil else { return nil }
        case 1:
            guard r.skip(1), r.se() != nil, r.se() != nil, let cycle = r.ue(), cycle <= 255 else { return nil }
            for _ in 0..<cycle { guard r.se() != nil else { return nil } }
        case 2: break
        default: return nil
        }
        guard r.ue() != nil, r.skip(1), let widthMBs = r.ue(), let heightUnits = r.ue(), let frameOnly = r.bits(1)
        else { return nil }
        if frameOnly == 0 { guard r.skip(1) else { return nil } }
        guard r.skip(1), let cropping = r.bits(1) else { return nil }
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if cropping == 1 {
            guard let left = r.ue(), let right = r.ue(), let top = r.ue(), let bottom = r.ue() else { return nil }
            crop = (left, right, top, bottom)
        }
        let arrayType = separatePlanes ? 0 : chromaFormat
        let subWidth = arrayType == 1 || arrayType == 2 ? 2 : 1
        let subHeight = arrayType == 1 ? 2 : 1
        let fieldFactor = 2 - frameOnly
        let width = (widthMBs + 1) * 16 - subWidth * (crop.left + crop.right)
        let height = fieldFactor * (heightUnits + 1) * 16 - subHeight * fieldFactor * (crop.top + crop.bottom)
        return plausible(width, height)
    }

    private static func skipScalingList(_ r: inout BitReader, size: Int) -> Bool {
        var last = 8
        var next = 8
        for _ in 0..<size {
            if next != 0 {
                guard let delta = r.se() else { return false }
                next = (last + delta + 256) % 256
            }
            last = next == 0 ? last : next
        }
        return true
    }

    // MARK: HEVC (ITU-T H.265 7.3.2.2.1)

    private static func hevcSPS(_ r: inout BitReader) -> (width: Int, height: Int)? {
        guard r.skip(4), let subLayers = r.bits(3), r.skip(1) else { return nil }
        // profile_tier_level: the general profile (88 bits) and level (8 bits), then the sub-layers'.
        guard r.skip(96) else { return nil }
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<subLayers {
            guard let p = r.bits(1), let l = r.bits(1) else { return nil }
            profilePresent.append(p == 1)
            levelPresent.append(l == 1)
        }
        if subLayers > 0 { guard r.skip(2 * (8 - subLayers)) else { return nil } }
        for i in 0..<subLayers {
            if profilePresent[i] { guard r.skip(88) else { return nil } }
            if levelPresent[i] { guard r.skip(8) else { return nil } }
        }
        guard r.ue() != nil, let chromaFormat = r.ue(), chromaFormat <= 3 else { return nil }
        var separatePlanes = false
        if chromaFormat == 3 {
            guard let flag = r.bits(1) else { return nil }
            separatePlanes = flag == 1
        }
        guard let width = r.ue(), let height = r.ue(), let window = r.bits(1) else { return nil }
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if window == 1 {
            guard let left = r.ue(), let right = r.ue(), let top = r.ue(), let bottom = r.ue() else { return nil }
            crop = (left, right, top, bottom)
        }
        let arrayType = separatePlanes ? 0 : chromaFormat
        let subWidth = arrayType == 1 || arrayType == 2 ? 2 : 1
        let subHeight = arrayType == 1 ? 2 : 1
        return plausible(width - subWidth * (crop.left + crop.right), height - subHeight * (crop.top + crop.bottom))
    }

    private static func plausible(_ width: Int, _ height: Int) -> (width: Int, height: Int)? {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else { return nil }
        return (width, height)
    }
}
