import CLinux
import Glibc

/// The capabilities of this process that change what photodrop does (asked once, from the effective set).
public enum Capabilities {
    /// `CAP_CHOWN`: files of other users can be given to this process's user (taken over instead of copied).
    public static let canChangeOwner: Bool = photodrop_has_effective_capability(0) == 1
    /// The effective user id, asked once: glibc makes a system call for every `geteuid()`, and photodrop never
    /// changes its user.
    public static let effectiveUser: UInt32 = geteuid()
}
