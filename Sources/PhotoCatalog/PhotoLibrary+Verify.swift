import Foundation

extension PhotoLibrary {
    /// Checks the catalog against the files (`photodrop verify`): originals that are missing, unreadable or of the
    /// wrong size, files under `originals/` that no asset refers to, changes a crashed writer left unsettled, files
    /// crash recovery set aside, assets without an original, album counts, and SQLite's own `quick_check` and
    /// `foreign_key_check`.
    ///
    /// Reads only; safe while another process (the ingest daemon) writes the library: files a running writer is
    /// placing or removing are counted in ``VerificationReport/changesInFlight`` and not reported.
    ///
    /// - Parameter deep: also recompute the SHA-256 of every original (reads every byte) and run SQLite's full
    ///   `integrity_check` instead of `quick_check`.
    /// - Throws: ``PhotosError`` `.libraryVolumeOffline` when there is no library at ``url``, or a database error.
    public func verify(deep: Bool = false) throws -> VerificationReport {
        try LibraryVerifier(library: self, deep: deep).run()
    }
}
