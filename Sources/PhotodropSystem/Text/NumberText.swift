/// Numbers as text the way C's `printf` wrote them (`%02d`, `%02x`, `%.1f`, `%g`), without Foundation's
/// `String(format:)`.
public enum NumberText {
    /// `value` in decimal, zero-padded to `width` digits (a minus sign before the digits).
    public static func decimal(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return value < 0 ? "-" + padded : padded
    }

    /// `value` in hexadecimal, zero-padded to `width` digits.
    public static func hex<T: BinaryInteger>(_ value: T, width: Int, uppercase: Bool = false) -> String {
        let digits = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `value` with `places` digits after the point, as `%.Nf` prints it (ties to even, `-0` for a small negative
    /// value).
    public static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        // `value × scale` rounded as the exact decimal value of the double is: the product is rounded to a double
        // already, so a product that lands on .5 is a tie only when the multiplication was exact (fma tells the
        // rest); printf rounds true ties to even.
        let product = abs(value) * scale
        let scaled: Double
        if product - product.rounded(.down) == 0.5 {
            let residual = fmaResidual(abs(value), scale, product)
            scaled = residual > 0 ? product.rounded(.up) : residual < 0 ? product.rounded(.down)
                : product.rounded(.toNearestOrEven)
        } else {
            scaled = product.rounded(.toNearestOrEven)
        }
        let whole = Int(scaled / scale)
        let part = Int((scaled - Double(whole) * scale).rounded())
        let sign = value.sign == .minus ? "-" : ""
        return places == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(decimal(part, width: places))"
    }

    /// `value` with at most `places` digits after the point and no trailing zeros (`4`, `2.8`), as `%g` prints
    /// the values photodrop shows.
    public static func compact(_ value: Double, places: Int = 6) -> String {
        var text = fixed(value, places: places)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// `a × b − product` exactly (a fused multiply-add), for a `product` that is `a × b` rounded.
    private static func fmaResidual(_ a: Double, _ b: Double, _ product: Double) -> Double {
        (-product).addingProduct(a, b)
    }
}
