import PhotoCatalog

/// The albums this example knows, as in the snippet it ports: `PhotoAlbums.landscapes.album(in: library)`.
enum PhotoAlbums: String, CaseIterable, Sendable {
    case landscapes = "Landscapes"
    case portraits = "Portraits"

    /// The handler that saves into this album.
    func album(in library: PhotoLibrary) -> any PhotoAlbumHandler {
        switch self {
        case .landscapes: return LandscapesAlbum(library: library)
        case .portraits: return PortraitsAlbum(library: library)
        }
    }

    /// The album named `title` (case-insensitively), if it is one of these.
    init?(title: String) {
        guard let album = PhotoAlbums.allCases.first(where: { $0.rawValue.lowercased() == title.lowercased() }) else {
            return nil
        }
        self = album
    }
}

/// Saves into "Landscapes".
struct LandscapesAlbum: PhotoAlbumHandler {
    let albumName = PhotoAlbums.landscapes.rawValue
    let library: PhotoLibrary
}

/// Saves into "Portraits".
struct PortraitsAlbum: PhotoAlbumHandler {
    let albumName = PhotoAlbums.portraits.rawValue
    let library: PhotoLibrary
}

/// Saves into an album of any other title.
struct NamedAlbum: PhotoAlbumHandler {
    let albumName: String
    let library: PhotoLibrary
}
