/// A size in pixels (`CGSize` where PhotoKit takes one).
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `PHImageManagerMaximumSize`: the largest picture there is (the original, upright, decoded).
    public static let maximum = PixelSize(width: Int.max, height: Int.max)

    public var description: String { self == .maximum ? "maximum" : "\(width) × \(height)" }
}
