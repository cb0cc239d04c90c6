import Glibc

/// The system's user and group database (`/etc/passwd`, `/etc/group`, or what NSS serves).
public enum UserDatabase {
    /// The name of user `id`, if it has one.
    public static func userName(of id: UInt32) -> String? {
        guard let entry = getpwuid(id), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// The id of the group called `name`; nil when there is none. Throws when the database cannot be read.
    public static func groupID(named name: String) throws(SystemError) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var size = 1024
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let code = getgrnam_r(name, &entry, &buffer, size, &result)
            if code == ERANGE && size < 1 << 20 {
                size *= 4
                continue
            }
            if code != 0 { throw SystemError(code: code, call: "getgrnam_r", path: nil) }
            return result == nil ? nil : entry.gr_gid
        }
    }
}
