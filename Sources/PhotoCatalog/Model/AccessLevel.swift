/// The access a program asks for (`PHAccessLevel`). Both need write access to the library folder on a server.
public enum AccessLevel: Int, Sendable, Hashable, Codable, CaseIterable {
    /// Adding assets only.
    case addOnly = 1
    /// Reading and changing the library.
    case readWrite = 2
}
