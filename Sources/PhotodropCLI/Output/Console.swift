import PhotodropSystem

/// Where a command writes: stdout for results, stderr for messages. Injectable for tests.
public struct Console: Sendable {
    public var output: @Sendable (String) -> Void
    public var error: @Sendable (String) -> Void

    public init(output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.output = output
        self.error = error
    }

    /// The process's stdout and stderr.
    public static let standard = Console(output: { write($0, to: .standardOutput) }, error: { write($0, to: .standardError) })

    private static func write(_ text: String, to fd: FileDescriptor) {
        try? FileSystem.writeAll(text, to: fd, path: nil)  // a closed stdout (`| head`) is not an error here
    }
}
