/// Which keys of config.json a running daemon may take over on SIGHUP, and which it refuses.
///
/// Fixed are the keys that name places or decide where files go: changing them under a running daemon would leave
/// claimed files, the watch lock and the library's modes behind in the old places. Everything else applies live.
public enum ConfigReload {
    /// The keys `watch` and `serve` refuse to change live (a restart applies them) whose values differ: `library`,
    /// `inbox`, `rejected`, `albums`, `libraryGroup`, `catalog.postgres`, `catalog.passwordFile`, `node`.
    public static func fixedChanges(from old: IngestConfig, to new: IngestConfig) -> [String] {
        var keys: [String] = []
        if old.library != new.library { keys.append("library") }
        if old.inbox != new.inbox { keys.append("inbox") }
        if old.rejected != new.rejected { keys.append("rejected") }
        if old.albums != new.albums { keys.append("albums") }
        if old.libraryGroup != new.libraryGroup { keys.append("libraryGroup") }
        if old.catalog.postgres != new.catalog.postgres { keys.append("catalog.postgres") }
        if old.catalog.passwordFile != new.catalog.passwordFile { keys.append("catalog.passwordFile") }
        if old.node != new.node { keys.append("node") }
        if old.poll != new.poll { keys.append("poll") }
        if old.rescanSeconds != new.rescanSeconds { keys.append("rescanSeconds") }
        if old.claimLeaseSeconds != new.claimLeaseSeconds { keys.append("claimLeaseSeconds") }
        return keys
    }

    /// What `serve` refuses to change live: the places, and how it listens (`serve.listen`, `serve.tls`,
    /// `serve.behindProxy`, `serve.trustedProxies`: a changed address or TLS setting is for a restart, where refusing to
    /// start is safe).
    public static func serveFixedChanges(from old: IngestConfig, to new: IngestConfig) -> [String] {
        var keys = fixedChanges(from: old, to: new)
        let listenChanged = old.serve.host != new.serve.host || (old.serve.port != new.serve.port && new.serve.port != 0)
        if listenChanged { keys.append("serve.listen") }
        if old.serve.certificateFile != new.serve.certificateFile || old.serve.keyFile != new.serve.keyFile {
            keys.append("serve.tls")
        }
        if old.serve.behindProxy != new.serve.behindProxy { keys.append("serve.behindProxy") }
        if old.serve.trustedProxies != new.serve.trustedProxies { keys.append("serve.trustedProxies") }
        return keys
    }

    /// The keys `watch` uses that differ and apply live (a graceful restart of its stages).
    public static func liveChanges(from old: IngestConfig, to new: IngestConfig) -> [String] {
        var keys: [String] = []
        if old.ignore != new.ignore { keys.append("ignore") }
        if old.settleMilliseconds != new.settleMilliseconds { keys.append("settleMilliseconds") }
        if old.incompleteGraceSeconds != new.incompleteGraceSeconds { keys.append("incompleteGraceSeconds") }
        if old.duplicates != new.duplicates { keys.append("duplicates") }
        if old.video != new.video { keys.append("video") }
        if old.workerCount != new.workerCount { keys.append("workers") }
        if old.pairWaitSeconds != new.pairWaitSeconds { keys.append("pairWaitSeconds") }
        if old.rawAndJpeg != new.rawAndJpeg { keys.append("rawAndJpeg") }
        if old.trashDays != new.trashDays { keys.append("trashDays") }
        if old.derivatives != new.derivatives { keys.append("derivatives") }
        if old.decodeMemoryMiB != new.decodeMemoryMiB { keys.append("decodeMemoryMiB") }
        if old.metrics != new.metrics { keys.append("metrics") }
        return keys
    }
}
