/// Decoded pixels: 8-bit sRGB, four bands (RGBA), row after row without padding.
public struct DecodedImage: Sendable, Equatable {
    public let pixelWidth: Int
    public let pixelHeight: Int
    public let rgba: [UInt8]

    /// The mean of each of red, green and blue over the rectangle (in pixels; clamped to the image).
    public func meanColour(x: Int = 0, y: Int = 0, width: Int? = nil, height: Int? = nil) -> (Double, Double, Double) {
        let x0 = max(0, min(x, pixelWidth)), y0 = max(0, min(y, pixelHeight))
        let x1 = min(pixelWidth, x0 + (width ?? pixelWidth)), y1 = min(pixelHeight, y0 + (height ?? pixelHeight))
        var sums = (0.0, 0.0, 0.0)
        for row in y0..<y1 {
            var index = (row * pixelWidth + x0) * 4
            for _ in x0..<x1 {
                sums.0 += Double(rgba[index])
                sums.1 += Double(rgba[index + 1])
                sums.2 += Double(rgba[index + 2])
                index += 4
            }
        }
        let count = Double(max(1, (x1 - x0) * (y1 - y0)))
        return (sums.0 / count, sums.1 / count, sums.2 / count)
    }
}
