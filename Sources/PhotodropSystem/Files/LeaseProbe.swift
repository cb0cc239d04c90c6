import Glibc
import CLinux

/// Whether some process has a file open for writing, asked the cheap way: a read lease (`fcntl(F_SETLEASE,
/// F_RDLCK)`), which the kernel refuses with `EAGAIN` while any process has the file open for writing, then released
/// at once. About three system calls, instead of walking `/proc/*/fd`.
///
/// The lease needs the file's owner or `CAP_LEASE` and a local file system. While it is held (microseconds), a writer
/// opening the file makes the kernel send the lease-break signal, `SIGIO`, whose default action ends the process; the
/// first probe therefore sets `SIGIO` to ignored when it still has that default.
public enum LeaseProbe {
    private static let ignoreLeaseBreakSignal: Void = {
        var current = sigaction()
        if sigaction(SIGIO, nil, &current) == 0 && current.__sigaction_handler.sa_handler == nil {
            signal(SIGIO, SIG_IGN)
        }
    }()

    /// True: a writer has the file open; false: nobody does; nil: cannot tell (not the owner without `CAP_LEASE`, a
    /// file system without leases such as NFS). `descriptor` must be open read-only.
    public static func hasWriters(_ file: FileDescriptor) -> Bool? {
        _ = ignoreLeaseBreakSignal
        let descriptor = file.rawValue
        if photodrop_set_lease(descriptor, Int32(F_RDLCK)) == 0 {
            _ = photodrop_set_lease(descriptor, Int32(F_UNLCK))
            return false
        }
        return errno == EAGAIN ? true : nil
    }
}
