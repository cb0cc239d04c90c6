import PhotoCatalog

/// What a request for a page of assets asks (`limit`, `cursor`, `fields`), checked before any work is done: a bad
/// one is 400 whatever else the request says.
struct PageRequest {
    /// Assets on the page.
    let limit: Int
    /// The fetch: newest first by capture instant, after the cursor, one more than the page (to know whether one
    /// follows).
    let options: FetchOptions
    /// `fields=brief`: what a grid needs of each asset.
    let brief: Bool

    init(_ request: HTTPRequest) throws {
        var limit = LibraryAPI.defaultPageSize
        if let text = request.argument("limit") {
            guard let value = Int(text), (1...LibraryAPI.maximumPageSize).contains(value) else {
                throw APIFailure(400, "limit must be a number from 1 to \(LibraryAPI.maximumPageSize)")
            }
            limit = value
        }
        var options = FetchOptions(
            sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: limit + 1)
        if let text = request.argument("cursor"), !text.isEmpty {
            guard let cursor = AssetCursor(string: text) else { throw APIFailure(400, "'\(text)' is not a cursor") }
            options.predicate = .capturedBefore(cursor)
        }
        switch request.argument("fields") {
        case nil, "", "all": brief = false
        case "brief": brief = true
        case let other?: throw APIFailure(400, "fields must be brief or all, not '\(other)'")
        }
        self.limit = limit
        self.options = options
    }
}
