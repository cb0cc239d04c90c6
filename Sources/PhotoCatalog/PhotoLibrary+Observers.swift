import FoundationEssentials

/// A weak reference to an observer.
struct WeakObserver {
    weak var observer: (any PhotoLibraryChangeObserver)?
}

extension PhotoLibrary {
    /// Starts telling `observer` about changes committed through this library (`register(_:)`). The library keeps a
    /// weak reference.
    public func register(_ observer: any PhotoLibraryChangeObserver) {
        observers.withLock { list in
            list.removeAll { $0.observer == nil || $0.observer === observer }
            list.append(WeakObserver(observer: observer))
        }
    }

    /// Stops telling `observer` about changes (`unregister(_:)`).
    public func unregister(_ observer: any PhotoLibraryChangeObserver) {
        observers.withLock { list in list.removeAll { $0.observer == nil || $0.observer === observer } }
    }

    private var liveObservers: [any PhotoLibraryChangeObserver] {
        observers.withLock { list in list.compactMap(\.observer) }
    }

    /// Called on the writer queue right after a commit. Only when observers exist does it fix a read snapshot of the
    /// library as this change left it (so that change details are exact even if more changes follow quickly) and
    /// queue the notification.
    func notifyObservers(_ changes: ChangeSet, token: PersistentChangeToken?) {
        guard !changes.isEmpty, !liveObservers.isEmpty else { return }
        var snapshot: ReaderConnection?
        // Each pending notification holds a read transaction; bound them so a stalled observer cannot pin the WAL.
        if pendingSnapshots.add(1, ordering: .relaxed).newValue <= 8 {
            snapshot = try? readers.snapshot()
        }
        if snapshot == nil { pendingSnapshots.subtract(1, ordering: .relaxed) }
        let change = PhotoLibraryChange(library: self, token: token, changes: changes, snapshot: snapshot)
        observerQueue.async {
            for observer in self.liveObservers { observer.photoLibraryDidChange(change) }
            if change.endSnapshot() { self.pendingSnapshots.subtract(1, ordering: .relaxed) }
        }
    }
}
