import PhotodropSystem

/// Which folders `/etc/fstab` mounts a file system on, and which are mounted now (`/proc/self/mountinfo`): a
/// configured folder below a mount point that fstab lists but that has nothing mounted is on a disk that is not
/// there.
public struct MountTable: Sendable {
    /// Mount points `/etc/fstab` lists for file systems (swap and `none` left out), octal escapes decoded.
    public var configured: [String]
    /// Mount points with something mounted now.
    public var mounted: Set<String>

    public init(configured: [String], mounted: Set<String>) {
        self.configured = configured
        self.mounted = mounted
    }

    /// The table of this machine now (empty lists where a file cannot be read).
    public static func current() -> MountTable {
        MountTable(
            configured: mountPoints(fstab: read("/etc/fstab") ?? ""),
            mounted: Set(mountPoints(mountinfo: read("/proc/self/mountinfo") ?? "")))
    }

    /// The deepest mount point that fstab lists, that contains `path` (or is it), and that has nothing mounted now;
    /// nil when every file system on the way is there. `/` is always mounted.
    public func unmountedMountPoint(containing path: String) -> String? {
        let candidates = configured.filter { $0 != "/" && Path.isSameOrBelow(path, $0) }
        guard let deepest = candidates.max(by: { $0.utf8.count < $1.utf8.count }) else { return nil }
        return mounted.contains(deepest) ? nil : deepest
    }

    /// The second field of each fstab line that mounts a file system.
    static func mountPoints(fstab text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
            let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 3, fields[1].hasPrefix("/"), fields[2] != "swap", fields[1] != "none" else {
                return nil
            }
            return Path.normalize(unescape(String(fields[1])))
        }
    }

    /// The fifth field of each mountinfo line (the mount point).
    static func mountPoints(mountinfo text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count > 4 ? Path.normalize(unescape(String(fields[4]))) : nil
        }
    }

    /// fstab and mountinfo write a space as `\040`, a tab as `\011`, a backslash as `\134`.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count,
                let value = UInt8(String(decoding: utf8[(i + 1)...(i + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func read(_ path: String) -> String? {
        guard let file = try? FileSystem.open(path, .readOnly),
            let bytes = try? file.readToEnd(limit: 4 << 20, path: path)
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
