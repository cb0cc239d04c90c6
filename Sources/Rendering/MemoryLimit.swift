import FoundationEssentials
import PhotodropSystem

/// How much memory this process may use: the limit of its cgroup (v2 `memory.max`, or v1
/// `memory.limit_in_bytes`; systemd's `MemoryMax=`, a container's limit) where one is set below the machine's
/// memory, else the machine's memory (`MemTotal`).
public enum MemoryLimit {
    /// The limit in bytes (1 GiB when nothing can be read). `root` is where `/proc` and `/sys` are looked for (a
    /// copy of their files, for tests).
    public static func available(root: String = "") -> Int64 {
        let machine = machineBytes(root: root) ?? (1 << 30)
        guard let limit = cgroupBytes(root: root), limit > 0 else { return machine }
        return min(limit, machine)
    }

    /// `MemTotal` of `/proc/meminfo`.
    static func machineBytes(root: String) -> Int64? {
        guard let text = try? String(contentsOfFile: root + "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemTotal:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kib = Int64(fields[1]) { return kib * 1024 }
        }
        return nil
    }

    /// The memory limit of this process's cgroup and of the cgroups above it (the smallest), or nil for none.
    static func cgroupBytes(root: String) -> Int64? {
        guard let membership = try? String(contentsOfFile: root + "/proc/self/cgroup", encoding: .utf8) else {
            return nil
        }
        var smallest: Int64?
        func consider(_ path: String) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
            let value = text.trimmingWhitespaceAndNewlines()
            // "max" (v2) or a huge number (v1's "unlimited") means no limit.
            guard let bytes = Int64(value), bytes < Int64(1) << 60 else { return }
            smallest = min(smallest ?? bytes, bytes)
        }
        for line in membership.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let relative = String(parts[2])
            if parts[0] == "0", parts[1].isEmpty {
                // v2: the unified hierarchy; every level from the process's cgroup up may have a limit.
                var path = relative
                while true {
                    consider(root + "/sys/fs/cgroup" + (path == "/" ? "" : path) + "/memory.max")
                    guard path != "/", !path.isEmpty else { break }
                    path = Path.parent(of: path)
                }
            } else if parts[1].split(separator: ",").contains("memory") {
                consider(root + "/sys/fs/cgroup/memory" + relative + "/memory.limit_in_bytes")
                consider(root + "/sys/fs/cgroup/memory/memory.limit_in_bytes")
            }
        }
        return smallest
    }
}
