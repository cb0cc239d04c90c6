import FoundationEssentials

/// A typed filter for fetches (photodrop's `NSPredicate`), compiled to SQL.
///
/// Asset predicates (media type, favourite, dates, …) apply to asset fetches; ``title(_:)`` applies to collection
/// fetches. Using one where it does not apply makes the fetch throw ``PhotosError/Code-swift.enum/invalidParameter``.
public indirect enum FetchPredicate: Sendable, Hashable {
    /// How a text property is compared: byte for byte, case-sensitive, without Unicode normalisation.
    public enum TextMatch: Sendable, Hashable {
        case equals(String)
        case contains(String)
        case hasPrefix(String)
    }

    /// Assets of this media type.
    case mediaType(AssetMediaType)
    /// Assets shown this way (e.g. `.imageAnimated` for GIFs).
    case playbackStyle(AssetPlaybackStyle)
    /// Favourites (`true`) or the others.
    case isFavorite(Bool)
    /// Hidden assets (`true`; also set ``FetchOptions/includeHiddenAssets``) or the others.
    case isHidden(Bool)
    /// Assets taken in `from..<to` (either end may be open); assets without a creation date never match.
    case creationDate(from: Date?, to: Date?)
    /// Assets added in `from..<to` (either end may be open).
    case addedDate(from: Date?, to: Date?)
    /// Assets whose primary resource has this SHA-256 (lowercase hex).
    case sha256(String)
    /// Assets whose primary resource had this file name.
    case originalFilename(TextMatch)
    /// Assets with this Live Photo content identifier.
    case contentIdentifier(String)
    /// Assets whose ``Asset/pairingKey`` is one of these (photodrop). Not indexed: combine it with an indexed
    /// predicate (a creation date range) where you can.
    case pairingKey(in: [String])
    /// Assets that await a partner (``Asset/awaitsPartner``) whose pairing key is one of these, or any key when nil;
    /// indexed (photodrop).
    case awaitingPartner(in: [String]?)
    /// Collections with this title.
    case title(TextMatch)
    /// Assets after `cursor` in the newest-first order by capture instant (creation date descending, then the order
    /// they were added in, descending; assets without a creation date last): with sort descriptors
    /// `[creationDate descending]` and a fetch limit, one page after another (photodrop; keyset pagination).
    case capturedBefore(AssetCursor)
    /// Objects with one of these identifiers.
    case localIdentifier(in: [String])
    /// All of these hold.
    case and([FetchPredicate])
    /// At least one of these holds.
    case or([FetchPredicate])
    /// This does not hold.
    case not(FetchPredicate)
}
