import PhotodropSystem

/// Who may read a library's files (a photodrop addition; PhotoKit's library belongs to one user by construction).
///
/// The library's folders are `0750`, its database `0640` and its stored originals `0440`: they belong to the user
/// that writes the library, nobody can change an original in place (not even its owner without a `chmod` first), and
/// nobody but the owner and ``groupID`` can read anything. A file moved into the library is taken over: owned by the
/// writing user and group ``groupID`` (with `fchown`, which needs `CAP_CHOWN` for a file of another user), mode `0440`.
/// A file that cannot be taken over is copied instead (see ``AssetResourceCreationOptions/shouldMoveFile``).
public struct LibraryPermissions: Sendable, Hashable {
    /// The group the library's files get; nil keeps the writing process's group.
    public var groupID: UInt32?
    /// Mode of folders (`0750`).
    public var folderMode: UInt32
    /// Mode of the database and other files the library writes (`0640`).
    public var databaseMode: UInt32
    /// Mode of stored originals (`0440`).
    public var originalMode: UInt32

    /// The defaults, optionally with a group that may read the library.
    public init(groupID: UInt32? = nil) {
        self.groupID = groupID
        self.folderMode = 0o750
        self.databaseMode = 0o640
        self.originalMode = 0o440
    }

    /// The policy as stored in the library, so that a change (another group) is applied to existing files once.
    var signature: String { "v1 group=\(groupID.map { String($0) } ?? "-") \(String(folderMode, radix: 8))/"
        + "\(String(databaseMode, radix: 8))/\(String(originalMode, radix: 8))" }
}
