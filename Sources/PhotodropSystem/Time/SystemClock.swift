import Glibc

/// The kernel's clocks.
public enum SystemClock {
    /// `CLOCK_REALTIME`: the wall-clock time, seconds and nanoseconds since 1970 (UTC).
    public static func realTime() -> FileTime {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return FileTime(time)
    }
}
