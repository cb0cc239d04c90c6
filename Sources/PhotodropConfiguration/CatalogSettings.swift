import FoundationEssentials
import PhotodropSystem

/// Where the catalog lives (config `catalog`): unset, `library.sqlite` in the library folder; with `postgres`, a
/// PostgreSQL database that several photodrop nodes share, the library folder on storage they all mount.
public struct CatalogSettings: Sendable, Equatable {
    /// A libpq connection string or URI (`catalog.postgres`): `postgresql:///photodrop?host=/run/postgresql`,
    /// `host=db.lan dbname=photodrop user=photodrop sslmode=verify-full`.
    public var postgres: String?
    /// A file whose first line is the database password (`catalog.passwordFile`), kept out of the config; resolved
    /// against the config file's folder.
    public var passwordFile: String?

    public init(postgres: String? = nil, passwordFile: String? = nil) {
        self.postgres = postgres
        self.passwordFile = passwordFile
    }

    /// Whether the catalog is in PostgreSQL.
    public var isPostgres: Bool { postgres != nil }

    /// The password from ``passwordFile`` (its first line), nil when none is configured.
    ///
    /// - Throws: a message naming the key and the file when it cannot be read or is empty.
    public func password() throws(CatalogSettings.Problem) -> String? {
        guard let passwordFile else { return nil }
        let bytes: [UInt8]
        do {
            let file = try FileSystem.open(passwordFile, .readOnly)
            bytes = try file.readToEnd(limit: 4096, path: passwordFile)
        } catch {
            throw Problem(
                description: "\"catalog.passwordFile\" is '\(passwordFile)', which cannot be read (\(error.reason)); "
                    + "make it readable by this user (chmod 0400, owned by it) or remove the key")
        }
        let firstLine = String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        guard !firstLine.isEmpty else {
            throw Problem(
                description: "\"catalog.passwordFile\" is '\(passwordFile)', whose first line is empty; write the "
                    + "database password on its first line")
        }
        return firstLine
    }

    /// Why the catalog settings cannot be used.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }
}
