/// The catalog's schema as forward-only migrations.
///
/// - v1: the catalog: assets, their resources (one stored original per SHA-256), albums with ordered memberships, and
///   the persistent change log.
/// - v2: the application journal (an opaque, typed log the ingest pipeline keeps its claims in).
/// - v3: placement intents, which make placing originals crash-safe (a block's placements now go to an ``IntentLog``;
///   the table keeps removals of purged originals).
/// - v4: `resources.path` without its unique index. Stored paths are `originals/xx/<asset-uuid>[-n].<ext>`, unique
///   by construction; the index's random keys cost each commit about one more dirty page per new file, and its few
///   readers (recovery, verify) find a path through the asset's UUID instead (``ResourcePath``).
/// - v5: `resources.damage`: what `verify --deep` found wrong with a stored original (`hashMismatch`), so that a
///   later drop of the same content replaces it instead of being thrown away as a duplicate.
/// - v6: the capture date's zone: `assets.creation_time_zone_offset` (seconds east of UTC, NULL when unknown) and
///   `assets.creation_date_is_floating` (a local time whose zone is unknown, stored as if UTC). Assets dated from
///   their content before v6 are marked `creation_zone_pending`: the daemon re-reads their originals' metadata in the
///   background to fill the zone (``PhotoLibrary/assetsAwaitingCreationTimeZone(limit:)``). The source name
///   `quickTimeMetadata` becomes `quickTime`.
/// - v7: folders (`CollectionList`): `collection_lists` (a tree through `parent_id`), `albums.parent_id` (the folder an
///   album is in, NULL at the top level), and `inbox_folder` on both (named `binding_key` since v13).
/// - v8: what sidecars say about an asset beyond dates and places: `assets.title`, `caption`, `keywords` (a JSON
///   array of strings) and `rating` (−1 … 5).
/// - v9: files that belong together: `assets.pairing_key` (an opaque key the files of one asset share, set by the
///   caller; photodrop's ingest uses the inbox folder and file stem, so that a RAW, a sidecar or a Live Photo half
///   arriving after its asset was stored finds it) and `assets.awaits_partner` (its primary file may be replaced by a
///   later one: a RAW or a movie stored alone). Only awaiting assets are indexed by key: an index of every asset's key
///   cost each commit about 4 % (random keys, a dirty page per new asset), and the other lookups go through the
///   capture date's index or, for the rare late sidecar, a scan. `albums.summary`: an album's description (e.g. from
///   a Google Takeout album's `metadata.json`).
/// - v10: `derivatives`: an asset's thumbnail and preview (``DerivativeKind``), one row per kind, with the SHA-256 of
///   the original it was made from (so that a replaced original makes it out of date) and either its file (path,
///   size, pixel size, SHA-256) or the decoder's error. Rows go with their asset; their files are removed after a
///   purge commits.
/// - v11: `file_records`: what an application noted about a file (``FileRecord``: watch's outcome of every file, an
///   upload received by serve), by device and inode, kept 30 days; `assets.camera_make` and `camera_model`.
/// - v12: how each asset was made (``CaptureDetails``: exposure, lens, flash, artist, copyright, direction, frame rate)
///   as one JSON object in `assets.capture_details`. Assets stored before v12 are marked `details_pending`: the
///   daemon re-reads their originals in the background (``PhotoLibrary/assetsAwaitingCaptureDetails(limit:)``) to fill
///   these and, where the library has none, the title, caption, keywords and rating the file itself records.
/// - v13: `inbox_folder` becomes `binding_key` on albums and folders: the catalog keeps a key its client chose
///   (``AssetCollection/bindingKey``) and knows nothing of inboxes.
///
/// `albums.next_position` makes appending O(1); `albums.asset_count` counts members that are neither hidden nor
/// deleted and is kept up to date by every change that affects it, so finding an album never counts its members.
///
/// Dates are stored as seconds since 1970 (REAL); change-log commit times as milliseconds (INTEGER).
enum Schema {
    static let migrator = Migrator(migrations: [
        version1, version2, version3, version4, version5, version6, version7, version8, version9, version10,
        version11, version12, version13,
    ])

    static var latestVersion: Int { migrator.latestVersion }

    static let version1 = Migrator.Migration(
        version: 1, name: "catalog",
        sql: """
            CREATE TABLE library_meta(
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            ) WITHOUT ROWID;
            INSERT INTO library_meta(key, value) VALUES
                ('library_id', lower(hex(randomblob(16)))),
                ('history_pruned_through', '0');

            CREATE TABLE assets(
                id INTEGER PRIMARY KEY,
                uuid TEXT NOT NULL UNIQUE,
                media_type INTEGER NOT NULL,
                media_subtypes INTEGER NOT NULL DEFAULT 0,
                playback_style INTEGER NOT NULL,
                creation_date REAL,
                creation_date_source TEXT,
                added_date REAL NOT NULL,
                modification_date REAL NOT NULL,
                pixel_width INTEGER NOT NULL DEFAULT 0,
                pixel_height INTEGER NOT NULL DEFAULT 0,
                duration REAL NOT NULL DEFAULT 0,
                latitude REAL,
                longitude REAL,
                altitude REAL,
                is_favorite INTEGER NOT NULL DEFAULT 0,
                is_hidden INTEGER NOT NULL DEFAULT 0,
                deleted_date REAL,
                content_identifier TEXT
            );
            CREATE INDEX assets_by_creation_date ON assets(creation_date, id);
            CREATE INDEX assets_by_added_date ON assets(added_date, id);
            CREATE INDEX assets_by_content_identifier ON assets(content_identifier)
                WHERE content_identifier IS NOT NULL;

            CREATE TABLE resources(
                id INTEGER PRIMARY KEY,
                asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
                type INTEGER NOT NULL,
                sha256 TEXT NOT NULL UNIQUE,
                byte_count INTEGER NOT NULL,
                mime_type TEXT,
                uniform_type_identifier TEXT,
                original_filename TEXT NOT NULL,
                path TEXT NOT NULL UNIQUE
            );
            CREATE INDEX resources_by_asset ON resources(asset_id, type);

            CREATE TABLE albums(
                id INTEGER PRIMARY KEY,
                uuid TEXT NOT NULL UNIQUE,
                title TEXT NOT NULL,
                creation_date REAL NOT NULL,
                next_position INTEGER NOT NULL DEFAULT 0,
                asset_count INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX albums_by_title ON albums(title);

            CREATE TABLE album_assets(
                album_id INTEGER NOT NULL REFERENCES albums(id) ON DELETE CASCADE,
                asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                PRIMARY KEY(album_id, asset_id)
            ) WITHOUT ROWID;
            CREATE INDEX album_assets_by_position ON album_assets(album_id, position);
            CREATE INDEX album_assets_by_asset ON album_assets(asset_id);

            CREATE TABLE change_transactions(
                token INTEGER PRIMARY KEY AUTOINCREMENT,
                committed_at INTEGER NOT NULL
            );
            CREATE TABLE change_log(
                token INTEGER NOT NULL,
                object_type INTEGER NOT NULL,
                uuid TEXT NOT NULL,
                change_type INTEGER NOT NULL,
                PRIMARY KEY(token, object_type, uuid)
            ) WITHOUT ROWID;
            """)

    static let version2 = Migrator.Migration(
        version: 2, name: "application journal",
        sql: """
            CREATE TABLE journal(
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL,
                payload BLOB NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX journal_by_kind ON journal(kind, id);
            """)

    static let version3 = Migrator.Migration(
        version: 3, name: "placement intents",
        sql: """
            CREATE TABLE placement_intents(
                id INTEGER PRIMARY KEY,
                session TEXT NOT NULL,
                batch INTEGER NOT NULL,
                action INTEGER NOT NULL,
                method INTEGER NOT NULL,
                source TEXT,
                source_inode INTEGER,
                destination TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX placement_intents_by_batch ON placement_intents(session, batch);
            """)

    static let version4 = Migrator.Migration(
        version: 4, name: "resource paths without a unique index",
        sql: """
            CREATE TABLE resources_v4(
                id INTEGER PRIMARY KEY,
                asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
                type INTEGER NOT NULL,
                sha256 TEXT NOT NULL UNIQUE,
                byte_count INTEGER NOT NULL,
                mime_type TEXT,
                uniform_type_identifier TEXT,
                original_filename TEXT NOT NULL,
                path TEXT NOT NULL
            );
            INSERT INTO resources_v4(
                id, asset_id, type, sha256, byte_count, mime_type, uniform_type_identifier, original_filename, path)
            SELECT id, asset_id, type, sha256, byte_count, mime_type, uniform_type_identifier, original_filename, path
                FROM resources;
            DROP TABLE resources;
            ALTER TABLE resources_v4 RENAME TO resources;
            CREATE INDEX resources_by_asset ON resources(asset_id, type);
            """)

    static let version5 = Migrator.Migration(
        version: 5, name: "damage found by verify",
        sql: """
            ALTER TABLE resources ADD COLUMN damage TEXT;
            """)

    static let version6 = Migrator.Migration(
        version: 6, name: "capture time zones",
        sql: """
            ALTER TABLE assets ADD COLUMN creation_time_zone_offset INTEGER;
            ALTER TABLE assets ADD COLUMN creation_date_is_floating INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE assets ADD COLUMN creation_zone_pending INTEGER NOT NULL DEFAULT 0;
            UPDATE assets SET creation_date_source = 'quickTime' WHERE creation_date_source = 'quickTimeMetadata';
            UPDATE assets SET creation_zone_pending = 1
                WHERE creation_date IS NOT NULL AND creation_date_source IS NOT NULL
                  AND creation_date_source NOT IN ('fileModificationDate', 'gps', 'movieHeader');
            CREATE INDEX assets_awaiting_zone ON assets(id) WHERE creation_zone_pending = 1;
            """)

    static let version7 = Migrator.Migration(
        version: 7, name: "folders and inbox bindings",
        sql: """
            CREATE TABLE collection_lists(
                id INTEGER PRIMARY KEY,
                uuid TEXT NOT NULL UNIQUE,
                title TEXT NOT NULL,
                creation_date REAL NOT NULL,
                parent_id INTEGER,
                inbox_folder TEXT
            );
            CREATE INDEX collection_lists_by_parent ON collection_lists(parent_id);
            CREATE UNIQUE INDEX collection_lists_by_inbox_folder ON collection_lists(inbox_folder)
                WHERE inbox_folder IS NOT NULL;
            ALTER TABLE albums ADD COLUMN parent_id INTEGER;
            ALTER TABLE albums ADD COLUMN inbox_folder TEXT;
            CREATE INDEX albums_by_parent ON albums(parent_id) WHERE parent_id IS NOT NULL;
            CREATE UNIQUE INDEX albums_by_inbox_folder ON albums(inbox_folder) WHERE inbox_folder IS NOT NULL;
            """)

    static let version8 = Migrator.Migration(
        version: 8, name: "titles, captions, keywords and ratings",
        sql: """
            ALTER TABLE assets ADD COLUMN title TEXT;
            ALTER TABLE assets ADD COLUMN caption TEXT;
            ALTER TABLE assets ADD COLUMN keywords TEXT;
            ALTER TABLE assets ADD COLUMN rating INTEGER;
            """)

    static let version9 = Migrator.Migration(
        version: 9, name: "pairing keys and album descriptions",
        sql: """
            ALTER TABLE assets ADD COLUMN pairing_key TEXT;
            ALTER TABLE assets ADD COLUMN awaits_partner INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX assets_awaiting_partner ON assets(pairing_key) WHERE awaits_partner = 1;
            ALTER TABLE albums ADD COLUMN summary TEXT;
            """)

    static let version10 = Migrator.Migration(
        version: 10, name: "derivatives",
        sql: """
            CREATE TABLE derivatives(
                asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
                kind INTEGER NOT NULL,
                source_sha256 TEXT NOT NULL,
                created_at REAL NOT NULL,
                path TEXT,
                sha256 TEXT,
                byte_count INTEGER,
                mime_type TEXT,
                pixel_width INTEGER,
                pixel_height INTEGER,
                failure TEXT,
                PRIMARY KEY(asset_id, kind)
            ) WITHOUT ROWID;
            """)

    static let version11 = Migrator.Migration(
        version: 11, name: "file records and cameras",
        sql: """
            CREATE TABLE file_records(
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL,
                device INTEGER NOT NULL,
                inode INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                payload BLOB NOT NULL
            );
            CREATE INDEX file_records_by_file ON file_records(device, inode, id);
            CREATE INDEX file_records_by_time ON file_records(recorded_at);
            ALTER TABLE assets ADD COLUMN camera_make TEXT;
            ALTER TABLE assets ADD COLUMN camera_model TEXT;
            """)

    static let version12 = Migrator.Migration(
        version: 12, name: "capture details",
        sql: """
            ALTER TABLE assets ADD COLUMN capture_details TEXT;
            ALTER TABLE assets ADD COLUMN details_pending INTEGER NOT NULL DEFAULT 0;
            UPDATE assets SET details_pending = 1;
            CREATE INDEX assets_awaiting_details ON assets(id) WHERE details_pending = 1;
            """)

    static let version13 = Migrator.Migration(
        version: 13, name: "binding keys",
        sql: """
            ALTER TABLE albums RENAME COLUMN inbox_folder TO binding_key;
            ALTER TABLE collection_lists RENAME COLUMN inbox_folder TO binding_key;
            DROP INDEX albums_by_inbox_folder;
            DROP INDEX collection_lists_by_inbox_folder;
            CREATE UNIQUE INDEX albums_by_binding_key ON albums(binding_key) WHERE binding_key IS NOT NULL;
            CREATE UNIQUE INDEX collection_lists_by_binding_key ON collection_lists(binding_key)
                WHERE binding_key IS NOT NULL;
            """)
}
