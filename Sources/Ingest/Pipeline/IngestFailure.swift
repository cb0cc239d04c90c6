import MediaProbe
import PhotoCatalog
import PhotodropSystem

/// Why a file could not be finished (it stays in the inbox and is retried, or `import` reports it failed), or why the
/// pipeline stopped: typed from where it happened to the edge. Only the outcome log, `reason.json` and the command
/// line turn it into text (``description``); the watch loop and the health report decide by its case.
public enum IngestFailure: Error, Sendable, CustomStringConvertible {
    /// A system call on the file or its folders failed: errno and path.
    case io(SystemError)
    /// The path is, or lies below, a symbolic link; links are never followed.
    case symbolicLink(path: String)
    /// The path is no longer a regular file (a folder, a device, a FIFO took its place).
    case notRegularFile(path: String)
    /// The file changed while it was being read, and there is no inbox to put it back into (`import`).
    case changedWhileReading(path: String)
    /// The probe could not look at the file at all (libmagic's database, an I/O error while probing).
    case probe(ProbeError)
    /// The catalog refused or failed the change (a full disk, a locked or offline library).
    case catalog(PhotosError)
    /// The file was rejected, but could not be moved into `Rejected/`.
    case quarantine(QuarantineError)
    /// The daemon's lock on the library is gone (the library folder was removed or replaced).
    case lockLost(DaemonLock.Failure)
    /// The library went away while files were in flight; nothing more is written.
    case libraryLost(reason: String)
    /// A claimed file disappeared from the staging folder (someone removed it).
    case vanished(path: String)
    /// Another node took the file's claim over after this node's lease ran out (a shared catalog): that node finishes
    /// it, and this one leaves it alone.
    case claimTakenOver(path: String)
    /// OpenSSL failed (SHA-256 needs no resources: this should not happen).
    case crypto(String)
    /// An error of a kind this type does not know, with its text.
    case unexpected(String)

    /// The failure for any error thrown below the pipeline.
    public init(_ error: any Error) {
        switch error {
        case let error as IngestFailure: self = error
        case let error as SystemError: self = .io(error)
        case let error as PhotosError: self = .catalog(error)
        case let error as ProbeError: self = .probe(error)
        case let error as QuarantineError: self = .quarantine(error)
        case let error as DaemonLock.Failure: self = .lockLost(error)
        default: self = .unexpected(String(describing: error))
        }
    }

    /// Which health counter the failure feeds (``HealthMonitor``): a locked library and a full `Rejected/` are
    /// reported apart from other file failures.
    var healthKind: HealthMonitor.FailureKind {
        switch self {
        case .catalog(let error) where error.isDatabaseBusy: return .databaseBusy
        case .catalog(let error) where error.isCatalogUnreachable: return .catalogUnreachable
        case .quarantine: return .quarantine
        default: return .file
        }
    }

    public var description: String {
        switch self {
        case .io(let error): return error.description
        case .symbolicLink(let path): return "\(path) is, or lies below, a symbolic link; links are not followed"
        case .notRegularFile(let path): return "\(path) is not a regular file"
        case .changedWhileReading(let path):
            return "\(path) changed while it was being read; a writer is still at work; import it again once it is complete"
        case .probe(let error): return error.message
        case .catalog(let error): return error.description
        case .quarantine(let error): return error.description
        case .lockLost(let error): return error.description
        case .libraryLost(let reason): return "not stored: \(reason)"
        case .vanished(let path): return "the claimed file \(path) disappeared"
        case .claimTakenOver(let path):
            return "\(path) was taken over by another node after this node's claim lease ran out; that node finishes it"
        case .crypto(let call): return "OpenSSL failed in \(call)"
        case .unexpected(let text): return text
        }
    }
}
