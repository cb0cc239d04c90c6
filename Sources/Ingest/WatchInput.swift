/// What the watch loop receives: inotify events, files put back by the committer, and the order to stop.
enum WatchInput: Sendable {
    case event(InboxEvent)
    case deferred(Deferral)
    case stop(UnixSignal)
    /// The claim journal could not be written for these files (relative paths); they stay in the inbox.
    case claimFailed([String])
    /// The pipeline died (a worker could not start); stop and report this.
    case pipelineFailed(String)
}
