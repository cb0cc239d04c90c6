import PhotodropSystem

/// The group named by the config's `libraryGroup`: its members may read the library (folders 0750, database 0640,
/// originals 0440 with this group), nobody else may.
public struct LibraryGroup: Sendable, Hashable {
    /// The group's name.
    public var name: String
    /// Its id.
    public var id: gid_t

    /// The group called `name` in the system's group database, or nil when there is none.
    public init?(name: String) {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
        guard status == 0, let result else { return nil }
        self.name = name
        self.id = result.pointee.gr_gid
    }

    /// A group by id, for tests and callers that know it.
    public init(name: String, id: gid_t) {
        self.name = name
        self.id = id
    }

    /// Whether this process may give files to the group: root, or a member (`chown` to a group needs membership).
    public var isUsableByThisProcess: Bool {
        if geteuid() == 0 || getegid() == id { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return filled > 0 && groups[0..<Int(filled)].contains(id)
    }
}
