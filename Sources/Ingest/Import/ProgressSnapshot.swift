/// How far a batch import is, for the progress bar.
public struct ProgressSnapshot: Sendable, Hashable {
    /// Files finished (any outcome).
    public var filesDone: Int
    /// All files, once the scan has counted them; nil while it is still counting.
    public var filesTotal: Int?
    /// Bytes of finished files.
    public var bytesDone: Int64
    /// Bytes of all files, once known.
    public var bytesTotal: Int64?
    /// Time since the import started.
    public var elapsed: Duration

    public init(filesDone: Int, filesTotal: Int?, bytesDone: Int64, bytesTotal: Int64?, elapsed: Duration) {
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.elapsed = elapsed
    }
}
