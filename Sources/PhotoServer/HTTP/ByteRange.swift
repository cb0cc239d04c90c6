/// A `Range: bytes=…` request header against a file of `size` bytes (RFC 9110 §14): one range is served as 206;
/// several, or a header that is not a byte range, get the whole file; a range that starts past the end gets 416.
enum ByteRange: Equatable {
    case whole
    case part(offset: UInt64, length: UInt64)
    case unsatisfiable

    init(header: String?, size: UInt64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst(6).trimmingCharacters(in: " ")
        guard let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // The last N bytes.
            guard let suffix = UInt64(last), suffix > 0 else {
                self = last.isEmpty ? .whole : .unsatisfiable
                return
            }
            guard size > 0 else {
                self = .unsatisfiable
                return
            }
            let length = min(suffix, size)
            self = .part(offset: size - length, length: length)
            return
        }
        guard let start = UInt64(first) else {
            self = .whole
            return
        }
        guard start < size else {
            self = .unsatisfiable
            return
        }
        if last.isEmpty {
            self = .part(offset: start, length: size - start)
        } else if let end = UInt64(last), end >= start {
            self = .part(offset: start, length: min(end, size - 1) - start + 1)
        } else {
            self = .whole
        }
    }
}
