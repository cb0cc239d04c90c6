/// When the stored thumbnail and preview of a new asset are made (config `derivatives`).
public enum DerivativePolicy: String, Sendable, Hashable, CaseIterable {
    /// After ingestion: `watch` makes them in the background at low priority, `import` after its last commit.
    case ingest
    /// When first asked for (`photodrop thumbnail`, the image manager) or by `photodrop thumbnails`.
    case lazy
}
