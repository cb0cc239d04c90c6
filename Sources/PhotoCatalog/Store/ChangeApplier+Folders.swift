import FoundationEssentials

/// The folder (``CollectionList``) half of the applier, and the binding keys of albums and folders.
extension ChangeApplier {
    /// Inserts the folder of a creation request (at the top level; `addChildCollections` moves it).
    func createCollectionList(_ request: CollectionListChangeRequest) throws {
        guard let uuid = request.uuid else { return }
        if let folder = request.currentBindingKey {
            try database.run("UPDATE collection_lists SET binding_key = NULL WHERE binding_key = ?", [.text(folder)])
        }
        try database.run(
            "INSERT INTO collection_lists(uuid, title, creation_date, binding_key) VALUES (?, ?, ?, ?)",
            [.text(uuid), .text(request.currentTitle), .real(now), .optional(request.currentBindingKey)])
        createdListRows[uuid] = try database.lastInsertRowID
        changes.note(collectionList: uuid, .inserted)
    }

    func applyFolderOperation(_ operation: ChangeOperation) throws {
        switch operation {
        case .bindCollectionKey(let request):
            let (row, uuid) = try resolve(request.target)
            try bind(request.currentBindingKey, to: row, in: "albums")
            changes.note(collection: uuid, .updated)
        case .renameCollectionList(let request):
            let (row, uuid) = try resolve(request.target)
            try database.run(
                "UPDATE collection_lists SET title = ? WHERE id = ?", [.text(request.currentTitle), .integer(row)])
            changes.note(collectionList: uuid, .updated)
        case .bindCollectionListKey(let request):
            let (row, uuid) = try resolve(request.target)
            try bind(request.currentBindingKey, to: row, in: "collection_lists")
            changes.note(collectionList: uuid, .updated)
        case .addChildCollections(let request, let children):
            let (parent, parentUUID) = try resolve(request.target)
            for child in children { try move(child, to: parent) }
            changes.note(collectionList: parentUUID, .updated)
        case .removeChildCollections(let request, let children):
            let (parent, parentUUID) = try resolve(request.target)
            for child in children {
                switch child {
                case .album(let target):
                    let (row, uuid) = try resolve(target)
                    try database.run(
                        "UPDATE albums SET parent_id = NULL WHERE id = ? AND parent_id = ?",
                        [.integer(row), .integer(parent)])
                    changes.note(collection: uuid, .updated)
                case .folder(let target):
                    let (row, uuid) = try resolve(target)
                    try database.run(
                        "UPDATE collection_lists SET parent_id = NULL WHERE id = ? AND parent_id = ?",
                        [.integer(row), .integer(parent)])
                    changes.note(collectionList: uuid, .updated)
                }
            }
            changes.note(collectionList: parentUUID, .updated)
        case .deleteCollectionLists(let targets):
            for target in targets {
                let (row, uuid) = try resolve(target)
                let grandparent = try database.int64("SELECT parent_id FROM collection_lists WHERE id = ?", [.integer(row)])
                let keep: SQLValue = grandparent.map { .integer($0) } ?? .null
                for albumUUID in try database.rows(
                    "SELECT uuid FROM albums WHERE parent_id = ?", [.integer(row)], row: { $0.string(0) })
                {
                    changes.note(collection: albumUUID, .updated)
                }
                for listUUID in try database.rows(
                    "SELECT uuid FROM collection_lists WHERE parent_id = ?", [.integer(row)], row: { $0.string(0) })
                {
                    changes.note(collectionList: listUUID, .updated)
                }
                try database.run("UPDATE albums SET parent_id = ? WHERE parent_id = ?", [keep, .integer(row)])
                try database.run("UPDATE collection_lists SET parent_id = ? WHERE parent_id = ?", [keep, .integer(row)])
                try database.run("DELETE FROM collection_lists WHERE id = ?", [.integer(row)])
                changes.note(collectionList: uuid, .deleted)
            }
        default:
            break
        }
    }

    /// Puts an album or folder into the folder `parent` (its old folder, if any, is updated too). A folder cannot go
    /// into itself or below itself.
    private func move(_ child: ChildCollectionTarget, to parent: Int64) throws {
        switch child {
        case .album(let target):
            let (row, uuid) = try resolve(target)
            try noteParentFolderChanged(albumRow: row)
            try database.run("UPDATE albums SET parent_id = ? WHERE id = ?", [.integer(parent), .integer(row)])
            changes.note(collection: uuid, .updated)
        case .folder(let target):
            let (row, uuid) = try resolve(target)
            var ancestor: Int64? = parent
            var steps = 0
            while let current = ancestor {
                if current == row {
                    throw PhotosError.invalidParameter(
                        "A folder cannot be put into itself or into one of its own subfolders.")
                }
                steps += 1
                guard steps < 10_000 else { break }
                ancestor = try database.int64(
                    "SELECT parent_id FROM collection_lists WHERE id = ?", [.integer(current)])
            }
            if let old = try database.rows(
                "SELECT p.uuid FROM collection_lists l JOIN collection_lists p ON p.id = l.parent_id WHERE l.id = ?",
                [.integer(row)], row: { $0.string(0) }
            ).first {
                changes.note(collectionList: old, .updated)
            }
            try database.run(
                "UPDATE collection_lists SET parent_id = ? WHERE id = ?", [.integer(parent), .integer(row)])
            changes.note(collectionList: uuid, .updated)
        }
    }

    /// Binds `key` to the row of `table` (`albums` or `collection_lists`), taking it from any other row first (a key
    /// is unique); nil unbinds the row.
    private func bind(_ key: String?, to row: Int64, in table: String) throws {
        if let key {
            try database.run(
                "UPDATE \(table) SET binding_key = NULL WHERE binding_key = ? AND id != ?",
                [.text(key), .integer(row)])
        }
        try database.run("UPDATE \(table) SET binding_key = ? WHERE id = ?", [.optional(key), .integer(row)])
    }

    /// Notes the folder that holds an album as updated (its children change).
    func noteParentFolderChanged(albumRow: Int64) throws {
        if let parent = try database.rows(
            "SELECT l.uuid FROM albums a JOIN collection_lists l ON l.id = a.parent_id WHERE a.id = ?",
            [.integer(albumRow)], row: { $0.string(0) }
        ).first {
            changes.note(collectionList: parent, .updated)
        }
    }

    /// The row and UUID of a folder named in a change.
    func resolve(_ target: CollectionListTarget) throws -> (Int64, String) {
        switch target {
        case .created(let request):
            guard let uuid = request.uuid, let row = createdListRows[uuid] else {
                throw PhotosError(
                    .internalError, title: "Creation order", message: "A folder was used before it existed.")
            }
            return (row, uuid)
        case .existing(let uuid, let identifier):
            guard let row = try database.int64("SELECT id FROM collection_lists WHERE uuid = ?", [.text(uuid)]) else {
                throw PhotosError(
                    .identifierNotFound, title: "Folder not found",
                    message: "The folder '\(identifier)' does not exist (any more); fetch or create it again.")
            }
            return (row, uuid)
        }
    }
}
