import FoundationEssentials
import PhotoCatalog
import PhotodropSystem

/// Where the configured library is, and whether a command may write there.
///
/// The rule protects against a library disk that is not mounted: its mount point is an ordinary empty folder, and a
/// daemon that created a fresh library there would consume the inbox into the root file system while the real
/// library sits unseen on the unmounted disk. So `watch` and `import` create a library only where the library
/// folder does not exist yet (the first run); an existing folder without a library in it is refused, and
/// `photodrop init` creates one there on purpose.
public enum LibraryLocation {
    /// What is at the library path.
    public enum State: Sendable, Hashable {
        /// Nothing: the first write creates the folder and the library.
        case missing
        /// A folder with a library (its database).
        case library
        /// A folder without a library: an unmounted disk's mount point, or a wrong path.
        case folderWithoutLibrary(entries: Int)
        /// Something that is not a folder, or cannot be looked at.
        case unusable(String)
    }

    /// Why a command may not write the configured library.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// What is at `path` now. With a PostgreSQL catalog (`catalogInPostgres`) the folder holds no database: a library
    /// folder is one with `originals/` in it.
    public static func state(of path: String, catalogInPostgres: Bool = false) -> State {
        do throws(SystemError) {
            if try FileSystem.linkStatus(atPath: path) == nil { return .missing }
        } catch {
            return .unusable("cannot look at '\(path)': \(error.reason)")
        }
        guard let folder = try? FileSystem.status(atPath: path), folder.isDirectory else {
            return .unusable("'\(path)' is not a folder")
        }
        let marker = catalogInPostgres ? "originals" : PhotoLibrary.databaseName
        if (try? FileSystem.linkStatus(atPath: path + "/" + marker)) != nil { return .library }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? 0
        return .folderWithoutLibrary(entries: entries)
    }

    /// What is at `config`'s library path, by the rule of its catalog.
    public static func state(of config: IngestConfig) -> State {
        state(of: config.library, catalogInPostgres: config.catalog.isPostgres)
    }

    /// Throws unless a command may write the library of `config`: there is one, or nothing at all is at its path.
    public static func checkWritable(_ config: IngestConfig) throws(Refusal) {
        switch state(of: config) {
        case .missing, .library:
            return
        case .folderWithoutLibrary(let entries):
            let marker = config.catalog.isPostgres ? "originals/ folder" : "library.sqlite"
            let what = entries == 0 ? "an empty folder" : "a folder with \(entries) entries but no \(marker)"
            throw Refusal(
                description:
                    "the library folder '\(config.library)' (\"library\" in \(config.sourceFile ?? "the defaults")) is "
                    + "\(what): no photodrop library is in it. If the library lives on a disk that is not mounted, "
                    + "mount it and start again. To start a new library in this folder on purpose, run "
                    + "'photodrop init' first.")
        case .unusable(let problem):
            throw Refusal(description: "the library folder cannot be used: \(problem)")
        }
    }

    /// The library of `config`, with the configured permissions and catalog. A password file that cannot be read
    /// leaves the password out (the connection then fails with PostgreSQL's reason); ``checkCatalog(_:)`` says why
    /// first.
    public static func library(_ config: IngestConfig) -> PhotoLibrary {
        PhotoLibrary(
            url: URL(fileURLWithPath: config.library, isDirectory: true),
            permissions: LibraryPermissions(groupID: config.libraryGroup?.id), catalog: catalog(config))
    }

    /// Where `config`'s catalog is.
    public static func catalog(_ config: IngestConfig) -> CatalogLocation {
        guard let postgres = config.catalog.postgres else { return .sqlite }
        return .postgres(connectionString: postgres, password: (try? config.catalog.password()) ?? nil)
    }

    /// Throws when `config`'s catalog settings cannot be used (a password file that cannot be read).
    public static func checkCatalog(_ config: IngestConfig) throws(Refusal) {
        do { _ = try config.catalog.password() } catch { throw Refusal(description: error.description) }
    }

    /// Throws when the config's `libraryGroup` is one this process cannot give files to.
    public static func checkGroup(_ config: IngestConfig) throws(Refusal) {
        guard let group = config.libraryGroup, !group.isUsableByThisProcess else { return }
        throw Refusal(
            description:
                "\"libraryGroup\" in \(config.sourceFile ?? "the configuration") is \"\(group.name)\", but this user "
                + "(uid \(SystemProcess.effectiveUserID)) is not a member of it and cannot give files to it; add the user to the group "
                + "(usermod -aG \(group.name) USER) or remove the key")
    }
}
