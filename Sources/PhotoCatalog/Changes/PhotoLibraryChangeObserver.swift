/// Told about every change committed through a library in this process (`PHPhotoLibraryChangeObserver`).
///
/// Observers are called one change at a time, in commit order, on a serial background queue. The library keeps only
/// weak references: keep your observer alive and ``PhotoLibrary/unregister(_:)`` it when done. Changes made by other
/// processes are read from the persistent history (``PhotoLibrary/fetchPersistentChanges(since:limit:)``).
public protocol PhotoLibraryChangeObserver: AnyObject, Sendable {
    /// Called after a change committed; ask `changeInstance` for the details of the fetch results you show.
    func photoLibraryDidChange(_ changeInstance: PhotoLibraryChange)
}
