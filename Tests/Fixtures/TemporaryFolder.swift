import Foundation
import PhotodropSystem

/// A fresh folder under the system temp directory, removed when the test lets go of it.
public final class TemporaryFolder: Sendable {
    public let path: String

    /// A folder named `photodrop-<label>-XXXXXX` in `parent` (the system temp directory unless told).
    public init(_ label: String = "test", in parent: String = FileManager.default.temporaryDirectory.path) throws {
        let base = parent
        var template = Array("\(base)/photodrop-\(label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { throw SystemError.current("mkdtemp") }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The absolute path of `relative` inside the folder.
    public func url(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    /// Writes `text` to `relative`, making its folders; returns the absolute path.
    @discardableResult
    public func write(_ relative: String, _ text: String = "x") throws -> String {
        let full = url(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        return full
    }

    /// Makes the folder `relative` and its parents.
    public func mkdir(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: url(relative), withIntermediateDirectories: true)
    }
}
