/// The kinds of collection list (`PHCollectionListType`); photodrop has folders only.
public enum CollectionListType: Int, Sendable, Hashable, Codable, CaseIterable {
    /// A folder of albums and folders that people (or the daemon, for nested inbox folders) make.
    case folder = 2
}
