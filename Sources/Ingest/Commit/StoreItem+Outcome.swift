import PhotoCatalog
import Uploads

extension StoreItem {
    /// The outcome record of this file stored in a change block as its asset's first file: a new asset of its kind,
    /// or a duplicate of `asset`.
    func outcomeRecord(duplicate: Bool, asset: String?) -> OutcomeRecord {
        let kind: FileOutcome.Kind
        if duplicate {
            kind = .duplicate
        } else {
            switch probe?.kind {
            case .gif?: kind = .gif
            case .video?: kind = .video
            case .photo?: kind = .photo
            case nil: kind = isVideo ? .video : (known?.isAnimated == true ? .gif : .photo)
            }
        }
        return outcomeRecord(
            kind, asset: asset, message: duplicate ? "same content as \(asset ?? "a stored asset")" : probe?.message)
    }

    /// The outcome record of this file finished as `kind` with `asset`.
    func outcomeRecord(_ kind: FileOutcome.Kind, asset: String?, message: String?) -> OutcomeRecord {
        OutcomeRecord(
            outcome: kind.rawValue, path: job.displayPath, album: job.album, asset: asset, message: message)
    }
}
