import Glibc

/// This process, as the kernel knows it.
public enum SystemProcess {
    /// `getpid()`.
    public static var id: Int32 { getpid() }
    /// `geteuid()`.
    public static var effectiveUserID: UInt32 { geteuid() }
    /// `getegid()`.
    public static var effectiveGroupID: UInt32 { getegid() }
    /// Ends the process with `status` at once (`exit(3)`: buffered output flushed, no Swift clean-up).
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }

    /// The machine's host name (`gethostname`).
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Raises the soft limit on open descriptors to the hard one (at most `ceiling`); the limit in force after.
    public static func raiseOpenFileLimit(ceiling: Int = 1 << 20) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, rlim_t(ceiling))
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, rlim_t(ceiling)))
    }

    /// Raises the process's nice value by `increment` (`nice(2)`; lower priority).
    public static func lowerPriority(by increment: Int32) { _ = nice(increment) }

    /// Limits the process's address space (`RLIMIT_AS`), so that an allocation past it fails instead of exhausting
    /// the machine.
    public static func limitAddressSpace(to bytes: Int) {
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        _ = setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
    }

    /// The size of a memory page.
    public static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The supplementary groups (`getgroups`).
    public static var supplementaryGroupIDs: [UInt32] {
        let count = getgroups(0, nil)
        guard count > 0 else { return [] }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let got = getgroups(count, &groups)
        return got > 0 ? Array(groups.prefix(Int(got))) : []
    }
}
