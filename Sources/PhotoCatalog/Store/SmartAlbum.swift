/// The smart albums: fixed identifiers and titles, and the SQL that decides membership (on the alias `a` of
/// `assets`) and the natural order.
enum SmartAlbum: Int, CaseIterable, Sendable, Hashable {
    case userLibrary, favorites, recentlyAdded, videos, animated, livePhotos, recentlyDeleted

    /// How long an asset stays in Recently Added.
    static let recentlyAddedSeconds = 30 * 24 * 3600

    var subtype: AssetCollectionSubtype {
        switch self {
        case .userLibrary: return .smartAlbumUserLibrary
        case .favorites: return .smartAlbumFavorites
        case .recentlyAdded: return .smartAlbumRecentlyAdded
        case .videos: return .smartAlbumVideos
        case .animated: return .smartAlbumAnimated
        case .livePhotos: return .smartAlbumLivePhotos
        case .recentlyDeleted: return .smartAlbumRecentlyDeleted
        }
    }

    init?(subtype: AssetCollectionSubtype) {
        guard let album = SmartAlbum.allCases.first(where: { $0.subtype == subtype }) else { return nil }
        self = album
    }

    var title: String {
        switch self {
        case .userLibrary: return "All Photos"
        case .favorites: return "Favorites"
        case .recentlyAdded: return "Recently Added"
        case .videos: return "Videos"
        case .animated: return "Animated"
        case .livePhotos: return "Live Photos"
        case .recentlyDeleted: return "Recently Deleted"
        }
    }

    var localIdentifier: String {
        let name: String
        switch self {
        case .userLibrary: name = "UserLibrary"
        case .favorites: name = "Favorites"
        case .recentlyAdded: name = "RecentlyAdded"
        case .videos: name = "Videos"
        case .animated: name = "Animated"
        case .livePhotos: name = "LivePhotos"
        case .recentlyDeleted: name = "RecentlyDeleted"
        }
        return "SmartAlbum-\(name)" + LocalIdentifier.collectionSuffix
    }

    init?(localIdentifier: String) {
        guard let album = SmartAlbum.allCases.first(where: { $0.localIdentifier == localIdentifier }) else {
            return nil
        }
        self = album
    }

    /// Membership, apart from the hidden filter (see ``honoursHiddenFilter``).
    var condition: String {
        switch self {
        case .userLibrary: return "a.deleted_date IS NULL"
        case .favorites: return "a.deleted_date IS NULL AND a.is_favorite = 1"
        case .recentlyAdded:
            return "a.deleted_date IS NULL AND a.added_date >= unixepoch() - \(SmartAlbum.recentlyAddedSeconds)"
        case .videos: return "a.deleted_date IS NULL AND a.media_type = \(AssetMediaType.video.rawValue)"
        case .animated:
            return "a.deleted_date IS NULL AND a.playback_style = \(AssetPlaybackStyle.imageAnimated.rawValue)"
        case .livePhotos:
            return "a.deleted_date IS NULL AND (a.media_subtypes & \(AssetMediaSubtypes.photoLive.rawValue)) != 0"
        case .recentlyDeleted: return "a.deleted_date IS NOT NULL"
        }
    }

    /// Whether hidden assets are left out unless the options include them (not for Recently Deleted).
    var honoursHiddenFilter: Bool { self != .recentlyDeleted }

    /// Membership including the default hidden filter.
    var visibleCondition: String { honoursHiddenFilter ? "(\(condition)) AND a.is_hidden = 0" : condition }

    /// The natural order.
    var naturalOrder: String {
        switch self {
        case .recentlyAdded: return "a.added_date DESC, a.id DESC"
        case .recentlyDeleted: return "a.deleted_date DESC, a.id DESC"
        default: return "a.creation_date, a.id"
        }
    }
}
