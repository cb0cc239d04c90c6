import Ingest
import PhotodropSystem

/// Renders one line of the import progress bar; pure, so it is tested without a terminal.
///
/// `[=========>          ] 1,234/10,000 files  512.3 MB/2.1 GB  85.2 MB/s  ETA 0:21`
///
/// While the totals are unknown the bar and the ETA are left out. The line never exceeds `width` columns: the bar
/// shrinks first, then disappears, then the text is cut.
public enum ProgressRenderer {
    /// The line for `snapshot`, at most `width` columns (all ASCII, so columns = characters).
    public static func render(_ snapshot: ProgressSnapshot, width: Int) -> String {
        let seconds = snapshot.elapsed.seconds
        var parts: [String] = []
        if let total = snapshot.filesTotal {
            parts.append("\(grouped(snapshot.filesDone))/\(grouped(total)) files")
        } else {
            parts.append("\(grouped(snapshot.filesDone)) files")
        }
        if let total = snapshot.bytesTotal {
            parts.append("\(bytes(snapshot.bytesDone))/\(bytes(total))")
        } else {
            parts.append(bytes(snapshot.bytesDone))
        }
        let byteRate = seconds >= 0.2 ? Double(snapshot.bytesDone) / seconds : 0
        let fileRate = seconds >= 0.2 ? Double(snapshot.filesDone) / seconds : 0
        if seconds >= 0.2 {
            parts.append("\(bytes(Int64(byteRate)))/s")
            parts.append("\(grouped(Int(fileRate.rounded()))) files/s")
        }
        var remaining: Double?
        if let total = snapshot.bytesTotal, total > 0, byteRate > 0 {
            remaining = Double(max(0, total - snapshot.bytesDone)) / byteRate
        } else if let total = snapshot.filesTotal, fileRate > 0 {
            remaining = Double(max(0, total - snapshot.filesDone)) / fileRate
        }
        if let remaining, snapshot.filesTotal != nil {
            parts.append("ETA \(duration(remaining))")
        }
        let text = parts.joined(separator: "  ")

        let fraction: Double?
        if let total = snapshot.bytesTotal, total > 0 {
            fraction = Double(snapshot.bytesDone) / Double(total)
        } else if let total = snapshot.filesTotal, total > 0 {
            fraction = Double(snapshot.filesDone) / Double(total)
        } else if snapshot.filesTotal == 0 {
            fraction = 1
        } else {
            fraction = nil
        }
        return line(text, fraction: fraction, width: width)
    }

    /// `text` after a bar filled to `fraction` (none when nil), at most `width` columns: the bar shrinks first, then
    /// disappears, then the text is cut.
    public static func line(_ text: String, fraction: Double?, width: Int) -> String {
        let barWidth = min(40, width - text.count - 3)
        guard let fraction, barWidth >= 10 else {
            return String(text.prefix(max(0, width)))
        }
        let clamped = min(1, max(0, fraction))
        let filled = Int((clamped * Double(barWidth)).rounded(.down))
        var bar = String(repeating: "=", count: filled)
        if filled < barWidth {
            bar += ">"
            bar += String(repeating: " ", count: barWidth - filled - 1)
        }
        return "[\(bar)] \(text)"
    }

    /// `1234567` → `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var output = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { output += "," }
            output.append(digit)
        }
        return value < 0 ? "-" + output : output
    }

    /// Decimal units, as rates are usually quoted: `999 B`, `1.5 KB`, `12.3 MB`, `1.21 GB`.
    static func bytes(_ value: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB", "PB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1000 && unit < units.count - 1 {
            amount /= 1000
            unit += 1
        }
        if unit == 0 { return "\(value) B" }
        let decimals = amount < 10 ? 2 : (amount < 100 ? 1 : 0)
        return fixed(amount, decimals: decimals) + " " + units[unit]
    }

    /// `75` → `1:15`, `3725` → `1:02:05`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        let hours = total / 3600
        let minutes = total / 60 % 60
        let rest = total % 60
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }

    private static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        guard decimals > 0 else { return String(scaled) }
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        while fraction.count < decimals { fraction = "0" + fraction }
        return "\(whole).\(fraction)"
    }
}
