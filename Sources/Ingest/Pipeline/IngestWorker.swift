import MediaProbe
import PhotodropSystem
import PhotodropConfiguration

/// One worker's tools and its step of the pipeline: read a file once — SHA-256 and the probe's prefix from the same
/// bytes — then probe it through the open descriptor.
///
/// Owns a libmagic cookie (``MediaProber``), a ``HashingFileReader`` (its read buffer and SHA-256 state) and optionally a
/// lookup of stored content, none of which may be shared: one worker per thread or task, never `Sendable`.
final class IngestWorker {
    /// Whether a truncated file may wait for its upload to resume (watch) or is rejected at once (import).
    public enum TruncatedFiles: Sendable {
        case wait
        case reject
    }

    private let prober: MediaProber
    private let reader: HashingFileReader
    private let truncatedFiles: TruncatedFiles
    private let knownContent: ((SHA256Digest, _ album: String?) -> KnownContent?)?
    private var sampling = LookupSampling()

    /// A worker probing with `policy`.
    ///
    /// - Parameter knownContent: answers "which asset already stores this SHA-256, and is it already in this album?"
    ///   (nil: none). When it answers,
    ///   the probe is skipped: the file can only be a duplicate. Used by `import`, where a second run over the same
    ///   tree must be cheap. After many misses in a row it is asked for only some files (``LookupSampling``).
    public init(
        policy: VideoPolicy, truncatedFiles: TruncatedFiles,
        knownContent: ((SHA256Digest, _ album: String?) -> KnownContent?)? = nil
    ) throws {
        self.prober = try MediaProber(policy: policy)
        self.reader = try HashingFileReader()
        self.truncatedFiles = truncatedFiles
        self.knownContent = knownContent
    }

    /// The video policy of a configuration.
    public static func policy(for config: IngestConfig) -> VideoPolicy {
        VideoPolicy(
            videoCodecs: Set(config.video.videoCodecs.map(\.description)),
            audioCodecs: Set(config.video.audioCodecs.map(\.description)))
    }

    /// Reads, hashes and probes the job's file; `progress` hears how far the read got, chunk by chunk.
    public func process(_ job: IngestJob, progress: ((_ done: Int64, _ size: Int64) -> Void)? = nil) -> WorkerOutput {
        WorkerOutput(job: job, finding: examine(job, progress: progress))
    }

    private func examine(_ job: IngestJob, progress: ((Int64, Int64) -> Void)?) -> WorkerFinding {
        let fd: FileDescriptor
        do throws(SystemError) {
            fd = try SourceFileOpener.openForReading(job.source)
        } catch {
            if error.code == Errno.tooManySymbolicLinkLevels { return .failed(.symbolicLink(path: job.path)) }
            return .failed(.io(error))
        }
        if job.graceExpired, let verdict = job.incompleteVerdict {
            // Judged incomplete before and waited out its grace period: unchanged, it is rejected unread.
            if let info = try? fd.status(), FileIdentity(info) == verdict.identity { return .stillIncomplete(verdict) }
        }
        let digest: FileDigest
        do {
            digest = try reader.read(fileDescriptor: fd, path: job.displayPath, progress: progress)
        } catch .changedWhileReading {
            return .changed
        } catch {
            return .failed(error)
        }
        if let expected = job.expectedIdentity, expected != digest.identity { return .changed }
        if let knownContent, sampling.shouldLookUp() {
            let known = knownContent(digest.sha256, job.album)
            sampling.record(found: known != nil)
            if let known { return .known(digest, known) }
        }
        var result: ProbeResult
        do throws(ProbeError) {
            let head = reader.head
            result = try prober.probe(
                fileDescriptor: fd, fileSize: digest.size, head: head.bytes, headCount: head.count)
        } catch {
            return .failed(.probe(error))
        }
        result.metadata.adoptFileNameDate(job.originalName)
        if result.isAccepted { return .accepted(result, digest) }
        if result.isTruncated && truncatedFiles == .wait && !job.graceExpired {
            return .truncated(result, digest.identity)
        }
        return .rejected(result, digest)
    }
}

@available(*, unavailable, message: "an IngestWorker owns a libmagic cookie and a hashing context: one per thread")
extension IngestWorker: Sendable {}
