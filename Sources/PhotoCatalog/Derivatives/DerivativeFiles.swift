import FoundationEssentials
import PhotodropSystem

/// The files under `Library/derivatives/`: written by whoever made a derivative (any thread, any process), before
/// the writer records them.
///
/// A file is named by its asset, kind and content hash (`derivatives/xx/<asset-uuid>-<kind>-<hash16>.<ext>`), so two
/// processes making the same derivative at once never write over each other's different bytes: each renames its own
/// complete file into place, and the row the writer keeps names exactly the bytes it describes. Files are not
/// fsynced: a derivative lost in a power cut is found by its size (``isIntact(_:in:)``) and made again.
enum DerivativeFiles {
    static let folderName = "derivatives"

    /// The library-relative path of a derivative's file.
    static func relativePath(assetUUID: String, kind: DerivativeKind, sha256: String, mimeType: String) -> String {
        let uuid = assetUUID.lowercased()
        return "\(folderName)/\(uuid.prefix(2))/\(uuid)-\(kind.name)-\(sha256.prefix(16)).\(fileExtension(mimeType))"
    }

    static func fileExtension(_ mimeType: String) -> String {
        switch mimeType {
        case "image/webp": "webp"
        case "image/jpeg": "jpg"
        case "image/png": "png"
        case "video/mp4": "mp4"
        default: "bin"
        }
    }

    /// Writes `data` to `relative` (a path from ``relativePath(assetUUID:kind:sha256:mimeType:)``) in the library:
    /// to a temporary name first, then renamed into place, with the library's mode and group for originals.
    static func store(
        _ data: Data, to relative: String, library: Directory, permissions: LibraryPermissions
    ) throws(SystemError) {
        let components = relative.split(separator: "/").map(String.init)
        var folder = library
        for name in components.dropLast() {
            folder = try LibraryFiles.makeFolder(name, in: folder, permissions: permissions)
        }
        let name = components[components.count - 1]
        let temporary = ".\(name).\(SystemProcess.id).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = try folder.open(
            temporary, flags: [.writeOnly, .create, .exclusive], mode: permissions.originalMode)
        do throws(SystemError) {
            let failed = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> SystemError? in
                do throws(SystemError) { try descriptor.writeAll(bytes, path: Path.join(folder.path, temporary)) } catch {
                    return error
                }
                return nil
            }
            if let failed { throw failed }
            try LibraryFiles.apply(
                permissions, descriptor: descriptor, mode: permissions.originalMode,
                path: Path.join(folder.path, temporary))
            try folder.replace(temporary, to: folder, as: name)
        } catch {
            try? folder.remove(temporary)
            throw error
        }
    }

    /// Removes a derivative's file; a missing one is fine.
    static func remove(_ relative: String, library: Directory) {
        guard let (folder, name) = try? library.parent(of: relative) else { return }
        try? folder.remove(name)
    }

    /// Whether a recorded derivative's file is there with its recorded size.
    static func isIntact(_ file: Derivative.File, in library: Directory) -> Bool {
        guard let (folder, name) = try? library.parent(of: file.relativePath),
            let info = try? folder.status(name)
        else { return false }
        return isIntact(file, info)
    }

    /// Whether `info` (of the file found at a derivative's path) is a regular file of the recorded size.
    static func isIntact(_ file: Derivative.File, _ info: FileStatus) -> Bool {
        info.isRegularFile && info.size == file.byteCount
    }
}
