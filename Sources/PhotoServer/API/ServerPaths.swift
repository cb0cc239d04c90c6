/// Takes the server's own paths out of the messages clients get: an error from the file system names the file it
/// failed on (`/srv/photos/Library/originals/2024/…`), and where the library, the inbox and the rejected folder live
/// is no business of a client. Each path (to its closing quote, or to the next space) becomes the name of its place;
/// so do `originals/…` and `derivatives/…` paths relative to the library.
struct ServerPaths: Sendable {
    /// Absolute folders and what a client is told instead, the longest first (a folder inside another is matched as
    /// itself).
    private let roots: [(path: String, name: String)]
    private static let relative = [("originals/", "(a file of the library)"), ("derivatives/", "(a picture of the library)")]

    init(library: String, inbox: String?, rejected: String?) {
        var roots = [(library, "(the library)")]
        if let inbox { roots.append((inbox, "(the inbox)")) }
        if let rejected { roots.append((rejected, "(the rejected folder)")) }
        self.roots = roots.filter { $0.0.count > 1 }.sorted { $0.0.count > $1.0.count }
    }

    /// `text` with every server path replaced.
    func scrub(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        for (path, name) in roots { scalars = Self.replace(Array(path.unicodeScalars), with: name, in: scalars) }
        for (prefix, name) in Self.relative {
            scalars = Self.replace(Array(prefix.unicodeScalars), with: name, in: scalars, atWordStart: true)
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    private static let quotes: Set<Unicode.Scalar> = ["'", "\"", "‘", "’", "“", "”", "`"]

    /// Replaces each occurrence of `needle` and the rest of its path: to the quote that closes the one before it, or
    /// to the next space or the end.
    private static func replace(
        _ needle: [Unicode.Scalar], with name: String, in text: [Unicode.Scalar], atWordStart: Bool = false
    ) -> [Unicode.Scalar] {
        guard !needle.isEmpty, text.count >= needle.count else { return text }
        var output: [Unicode.Scalar] = []
        var index = 0
        while index < text.count {
            let startsWord = index == 0 || text[index - 1] == " " || quotes.contains(text[index - 1]) || text[index - 1] == "("
            if (!atWordStart || startsWord), index + needle.count <= text.count,
                text[index..<(index + needle.count)].elementsEqual(needle)
            {
                let quote = index > 0 && quotes.contains(text[index - 1]) ? text[index - 1] : nil
                var end = index + needle.count
                while end < text.count {
                    let scalar = text[end]
                    if let quote {
                        if scalar == quote || (quote == "‘" && scalar == "’") || (quote == "“" && scalar == "”") { break }
                    } else if scalar == " " || scalar == "\n" || scalar == "," || scalar == ")" || scalar == ";" {
                        break
                    }
                    end += 1
                }
                // A sentence's full stop after the path stays.
                if quote == nil, end > index + needle.count, text[end - 1] == "." || text[end - 1] == ":" { end -= 1 }
                output.append(contentsOf: name.unicodeScalars)
                index = end
                continue
            }
            output.append(text[index])
            index += 1
        }
        return output
    }
}
