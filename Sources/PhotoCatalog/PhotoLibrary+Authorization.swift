import Foundation
import PhotodropSystem

extension PhotoLibrary {
    /// Whether this process may change the library, judged from the folder (`authorizationStatus(for:)`):
    ///
    /// - `.notDetermined`: there is no library at the URL yet;
    /// - `.authorized`: the folder and its database are writable by this process;
    /// - `.denied`: they are not (`access(2)` says `EACCES`/`EPERM`: permissions);
    /// - `.restricted`: they are on a read-only filesystem (`EROFS`).
    ///
    /// Both access levels need the same; the answer is computed each time and never cached. Note that `access(2)`
    /// lets root write anywhere that is not read-only, as the kernel does.
    public func authorizationStatus(for accessLevel: AccessLevel) -> AuthorizationStatus {
        let folder = url.path
        var info = stat()
        if stat(folder, &info) != 0 {
            switch errno {
            case EACCES, EPERM: return .denied
            default: return .notDetermined
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .denied }
        guard FileManager.default.fileExists(atPath: databasePath) else {
            return PhotoLibrary.writable(folder, W_OK | X_OK) ?? .notDetermined
        }
        return PhotoLibrary.writable(folder, W_OK | X_OK) ?? PhotoLibrary.writable(databasePath, R_OK | W_OK)
            ?? .authorized
    }

    /// nil when `access(path, mode)` succeeds, else the status its errno means.
    private static func writable(_ path: String, _ mode: Int32) -> AuthorizationStatus? {
        if access(path, mode) == 0 { return nil }
        return errno == EROFS ? .restricted : .denied
    }

    /// Creates the library if there is none yet and reports the resulting status (`requestAuthorization(for:)`).
    /// There is no one to ask on a server: the answer comes from the folder's permissions.
    public func requestAuthorization(for accessLevel: AccessLevel) async -> AuthorizationStatus {
        await withCheckedContinuation { continuation in
            requestAuthorization(for: accessLevel) { continuation.resume(returning: $0) }
        }
    }

    /// Creates the library if there is none yet and calls `handler` with the resulting status on a background queue.
    public func requestAuthorization(
        for accessLevel: AccessLevel, handler: @escaping @Sendable (AuthorizationStatus) -> Void
    ) {
        writer.queue.async {
            let status: AuthorizationStatus
            do {
                _ = try self.openWriter()
                status = .authorized
            } catch let error as PhotosError where error.code == .accessRestricted {
                status = .restricted
            } catch let error as PhotosError where error.code == .accessUserDenied {
                status = .denied
            } catch {
                status = self.authorizationStatus(for: accessLevel)
            }
            self.completionQueue.async { handler(status) }
        }
    }
}
