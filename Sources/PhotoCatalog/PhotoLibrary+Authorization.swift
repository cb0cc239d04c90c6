import FoundationEssentials
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
        let info: FileStatus
        do { info = try FileSystem.status(atPath: folder) } catch {
            switch error.code {
            case Errno.permissionDenied, Errno.notPermitted: return .denied
            default: return .notDetermined
            }
        }
        guard info.isDirectory else { return .denied }
        guard !catalog.isPostgres, FileManager.default.fileExists(atPath: databasePath) else {
            return PhotoLibrary.writable(folder, [.write, .execute]) ?? .notDetermined
        }
        return PhotoLibrary.writable(folder, [.write, .execute]) ?? PhotoLibrary.writable(databasePath, [.read, .write])
            ?? .authorized
    }

    /// nil when `access(path, mode)` succeeds, else the status its errno means.
    private static func writable(_ path: String, _ access: FileSystem.Access) -> AuthorizationStatus? {
        do { try FileSystem.checkAccess(path, access) } catch {
            return error.code == Errno.readOnlyFileSystem ? .restricted : .denied
        }
        return nil
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
