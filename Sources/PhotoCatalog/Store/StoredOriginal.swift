/// A stored original as the catalog records it, and what is wrong with it on disk, if anything: what decides whether
/// a dropped copy of the same content may be thrown away, or must replace it.
struct StoredOriginal: Sendable, Hashable {
    /// Why a stored original cannot be trusted.
    enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// No file at its path.
        case missing
        /// A folder, link or other non-file stands at its path.
        case notRegularFile
        /// The file has another size than the catalog recorded.
        case sizeMismatch(found: Int64)
        /// `verify --deep` found its SHA-256 changed (the `damage` column).
        case recordedDamage

        var description: String {
            switch self {
            case .missing: return "its stored original was missing"
            case .notRegularFile: return "something other than a file stood where its stored original belongs"
            case .sizeMismatch(let found): return "its stored original had \(found) bytes instead of the recorded size"
            case .recordedDamage: return "its stored original was found damaged by 'photodrop verify --deep'"
            }
        }
    }

    /// The resource row.
    var resourceID: Int64
    /// Relative to the library folder (`originals/xx/<uuid>.<ext>`).
    var path: String
    /// The recorded size.
    var byteCount: Int64
    /// What `verify --deep` recorded (`hashMismatch`), or nil.
    var damage: String?
    /// Set by ``WriterConnection/originalNeedingRepair(_:)``.
    var problem: Problem?
}
