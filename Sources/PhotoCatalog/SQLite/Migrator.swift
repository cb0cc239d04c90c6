/// Forward-only, versioned schema migrations, kept in `PRAGMA user_version`.
///
/// Migration *n* turns a version *n − 1* database into version *n*. Each runs in its own `IMMEDIATE` transaction that
/// also sets `user_version`, so a crash leaves the database at a whole version. A database newer than the newest known
/// migration is refused, never touched.
public struct Migrator: Sendable {
    /// One schema step.
    public struct Migration: Sendable {
        /// The version the database has after this migration.
        public let version: Int
        /// What the step adds, for errors and logs.
        public let name: String
        /// The SQL statements of the step.
        public let sql: String

        /// A step to `version` named `name`, made of the statements in `sql`.
        public init(version: Int, name: String, sql: String) {
            self.version = version
            self.name = name
            self.sql = sql
        }
    }

    /// The steps in version order (1, 2, 3, …).
    public let migrations: [Migration]

    /// The version after the last step.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Creates a migrator; `migrations` must be numbered 1, 2, 3, … without gaps.
    public init(migrations: [Migration]) {
        precondition(
            migrations.enumerated().allSatisfy { $0.offset + 1 == $0.element.version },
            "migrations must be numbered 1, 2, 3, … without gaps")
        self.migrations = migrations
    }

    /// The database's current schema version.
    public func currentVersion(of database: Database) throws -> Int {
        Int(try database.pragmaInt("user_version"))
    }

    /// Applies every step above the database's version up to `target` (default: the latest).
    ///
    /// - Returns: the versions that were applied.
    /// - Throws: ``MigrationError/newerThanSupported(found:supported:)`` for a database from a newer program, or the
    ///   ``DatabaseError`` of the step that failed (its transaction is rolled back).
    @discardableResult
    public func migrate(_ database: Database, upTo target: Int? = nil) throws -> [Int] {
        let target = target ?? latestVersion
        let current = try currentVersion(of: database)
        if current > latestVersion {
            throw MigrationError.newerThanSupported(found: current, supported: latestVersion)
        }
        var applied: [Int] = []
        for migration in migrations where migration.version > current && migration.version <= target {
            try database.inTransaction(.immediate) {
                // Another connection may have migrated while we waited for the write lock.
                guard try currentVersion(of: database) < migration.version else { return }
                try database.execute(migration.sql)
                try database.execute("PRAGMA user_version = \(migration.version)")
                applied.append(migration.version)
            }
        }
        return applied
    }
}

/// Why a database could not be migrated.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file was written by a program that knows a newer schema.
    case newerThanSupported(found: Int, supported: Int)

    public var description: String {
        switch self {
        case .newerThanSupported(let found, let supported):
            return "the database has schema version \(found), but this program supports up to \(supported); "
                + "use a newer photodrop"
        }
    }
}
