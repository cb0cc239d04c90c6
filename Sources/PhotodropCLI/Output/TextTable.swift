/// A table for terminals: a header row and columns padded to their widest cell, two spaces apart.
///
/// Widths count characters (grapheme clusters); the last column is never padded, so long titles do not make every
/// line longer.
struct TextTable {
    enum Alignment {
        case left, right
    }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? headers.map { _ in .left }
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table as lines ending in newlines.
    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        var output = ""
        for row in [headers] + rows {
            var line = ""
            for (index, cell) in row.enumerated() {
                let isLast = index == row.count - 1
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                if index > 0 { line += "  " }
                switch alignments[index] {
                case .left: line += isLast ? cell : cell + padding
                case .right: line += padding + cell
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            output += line + "\n"
        }
        return output
    }
}
