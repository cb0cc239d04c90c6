/// An object of a photo library that a ``FetchResult`` holds (`PHObject`): ``Asset`` or ``AssetCollection``.
///
/// Two values are equal when they describe the same object in the same state; ``localIdentifier`` alone names the
/// object across states and processes.
public protocol PhotoObject: Sendable, Hashable {
    /// The object's identifier: opaque, stable forever, the same in every process.
    var localIdentifier: String { get }
}

/// Something that names an asset in a change request: an ``Asset`` or the ``ObjectPlaceholder`` of an asset created
/// in the same block.
public protocol AssetReference: Sendable {
    /// The asset's identifier (for a placeholder of a duplicate: the existing asset's, once its resource is added).
    var localIdentifier: String { get }
}
