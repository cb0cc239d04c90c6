/// Whether this process may change a library (`PHAuthorizationStatus`), judged from the library folder.
public enum AuthorizationStatus: Int, Sendable, Hashable, Codable, CaseIterable {
    /// No library exists at the URL yet; ``PhotoLibrary/requestAuthorization(for:)`` (or the first write) creates it.
    case notDetermined = 0
    /// The library lives on a read-only filesystem (`EROFS`): it can be read, never changed.
    case restricted = 1
    /// The library (or the folder it would be created in) may not be written by this user (`EACCES`/`EPERM`).
    case denied = 2
    /// The library exists and this process can change it.
    case authorized = 3
    /// PhotoKit's limited-library access; photodrop never reports it.
    case limited = 4
}
