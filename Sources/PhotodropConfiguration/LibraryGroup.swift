import PhotodropSystem

/// The group named by the config's `libraryGroup`: its members may read the library (folders 0750, database 0640,
/// originals 0440 with this group), nobody else may.
public struct LibraryGroup: Sendable, Hashable {
    /// The group's name.
    public var name: String
    /// Its id.
    public var id: UInt32

    /// The group called `name` in the system's group database, or nil when there is none.
    public init?(name: String) {
        guard let found = try? UserDatabase.groupID(named: name) else { return nil }
        self.name = name
        self.id = found
    }

    /// A group by id, for tests and callers that know it.
    public init(name: String, id: UInt32) {
        self.name = name
        self.id = id
    }

    /// Whether this process may give files to the group: root, or a member (`chown` to a group needs membership).
    public var isUsableByThisProcess: Bool {
        if SystemProcess.effectiveUserID == 0 || SystemProcess.effectiveGroupID == id { return true }
        return SystemProcess.supplementaryGroupIDs.contains(id)
    }
}
