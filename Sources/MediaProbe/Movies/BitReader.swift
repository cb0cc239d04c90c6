/// Reads bits, most significant first, from a NAL unit's payload with its emulation-prevention bytes (`00 00 03`)
/// removed; every read returns nil past the end.
struct BitReader {
    private var bytes: [UInt8] = []
    private var position = 0

    init(rbsp nal: ArraySlice<UInt8>) {
        bytes.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            bytes.append(byte)
        }
    }

    /// `count` bits (at most 32) as a number.
    mutating func bits(_ count: Int) -> Int? {
        guard count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            let bit = Int(bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
            value = value << 1 | bit
            position += 1
        }
        return value
    }

    /// Skips `count` bits; false past the end.
    mutating func skip(_ count: Int) -> Bool {
        guard position + count <= bytes.count * 8 else { return false }
        position += count
        return true
    }

    /// An unsigned Exp-Golomb number (`ue(v)`), at most 31 leading zeros.
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let bit = bits(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros <= 31 else { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// A signed Exp-Golomb number (`se(v)`).
    mutating func se() -> Int? {
        guard let k = ue() else { return nil }
        return k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
    }
}
