/// What the watch loop receives: inotify events, files put back by the committer, and the order to stop.
enum WatchInput: Sendable {
    case event(InboxEvent)
    case deferred(Deferral)
    case stop
    /// A reload was accepted: stop like ``stop``, and the service starts the stages again with the new config.
    case reload
    /// These files (relative paths) could not be claimed (the journal could not be written, or the file not moved);
    /// they stay in the inbox and are tried again after a back-off.
    case claimFailed([String], IngestFailure)
    /// The pipeline died (a worker could not start) or the library was lost; stop and report this.
    case pipelineFailed(IngestFailure)
}
