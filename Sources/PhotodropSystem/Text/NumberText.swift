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

    /// `value` with `places` digits after the point (rounded half away from zero), as `%.Nf` prints it.
    public static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        let whole = Int(scaled / scale)
        let part = Int(scaled - Double(whole) * scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
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
}
