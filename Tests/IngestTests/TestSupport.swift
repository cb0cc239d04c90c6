import Foundation
import MediaProbe
import PhotodropSystem
import Synchronization
import Testing

@testable import Ingest

/// A fresh folder under the system temp directory, removed when the test is done with it.
final class TemporaryFolder {
    let path: String

    init(_ label: String = "ingest") throws {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array("\(base)/photodrop-\(label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { throw SystemError.current("mkdtemp") }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func url(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    @discardableResult
    func write(_ relative: String, _ text: String = "x") throws -> String {
        let full = url(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        return full
    }

    func mkdir(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: url(relative), withIntermediateDirectories: true)
    }
}

/// Runs a command line tool and waits; returns its exit status.
@discardableResult
func run(_ tool: String, _ arguments: String...) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// The package root, from this file's path (Tests/IngestTests/TestSupport.swift).
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    url.deleteLastPathComponent()
    url.deleteLastPathComponent()
    url.deleteLastPathComponent()
    return url.path
}()

/// A `Mutex` in a class, so that closures can capture it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}

extension HashingFileReader {
    /// Opens `path` as the workers do (never through a link), reads and hashes it, and closes it.
    func read(path: String) throws -> FileDigest {
        let fd = SourceFileOpener.openForReading(path)
        guard fd >= 0 else {
            if errno == ELOOP { throw FileReadError.notRegularFile(path: path) }
            throw FileReadError.system(.current("open", path: path))
        }
        defer { close(fd) }
        return try read(fileDescriptor: fd, path: path)
    }
}
