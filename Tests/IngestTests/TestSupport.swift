import Foundation
import MediaProbe
import PhotodropSystem
import Synchronization
import TestFixtures
import Testing

@testable import Ingest

/// Runs a command line tool and waits; returns its exit status.
@discardableResult
func run(_ tool: String, _ arguments: String...) throws -> Int32 {
    try ProcessRunner.runBlocking(URL(fileURLWithPath: tool), arguments).status
}



extension HashingFileReader {
    /// Opens `path` as the workers do (never through a link), reads and hashes it, and closes it.
    func read(path: String) throws -> FileDigest {
        let fd: FileDescriptor
        do { fd = try SourceFileOpener.openForReading(path) } catch {
            if error.code == .tooManySymbolicLinkLevels { throw IngestFailure.notRegularFile(path: path) }
            throw IngestFailure.io(error)
        }
        return try read(fileDescriptor: fd, path: path)
    }
}
