/// The command table: the contract that tests and scripts rely on (the README lists it).
public enum PhotodropCommands {
    private static let json = OptionSpec.flag("json", help: "Print JSON instead of text (field names are stable).")

    /// `--config PATH`, accepted before or after the command.
    public static let config = OptionSpec.value(
        "config", "PATH",
        help:
            "The configuration file. Default: ./config.json if it exists, else built-in defaults (Library, Inbox and Rejected in the current folder). Relative paths in the file are relative to the file."
    )

    /// The whole tree.
    public static let root = CommandSpec(
        "photodrop",
        summary:
            "a headless photo library for servers: files dropped into Inbox/<Album>/ are checked by content and filed into the library's albums.",
        subcommands: [
            CommandSpec(
                "watch",
                summary: "Run the daemon: watch the inbox and file everything dropped into it, until SIGINT/SIGTERM.",
                discussion:
                    "The inbox is scanned at start, so files that arrived while photodrop was not running are taken too. Config 'albums' says how folders become albums: 'firstLevel' (default) — the first-level folder is the album and deeper folders file into it (Inbox/2023/Paris/x.jpg → album 2023); 'leaf' — the deepest folder is the album (2023/Paris and 2024/Paris → one album Paris); 'path' — each level is a folder of the library holding the albums (Inbox/2023/Paris/ → folder 2023, album Paris, apart from 2024/Paris). Files directly in the inbox join the library without an album. An album remembers the inbox folder it was made for, so renaming it keeps that folder filing into it. Files that belong together become one asset: a Live Photo's photo and movie (by content identifier), a RAW and its JPEG (same folder and stem, taken within 2 s; config 'rawAndJpeg'), an iPhone's edits and adjustments, and XMP or Google Takeout sidecars; a file that can have a partner waits for it up to 'pairWaitSeconds' (default 10), every other file is stored at once. A partner that arrives after its half was stored joins that asset (a photo arriving after its movie or RAW becomes the primary file). A sidecar's date, position, rating, title, caption and keywords apply through the capture-date precedence (an XMP sidecar's date first of all). A sidecar whose media never comes is rejected as orphanSidecar. A Google Takeout album's metadata.json gives its album a description. On SIGINT or SIGTERM photodrop stops taking new files, finishes those in flight and exits 0."
            ),
            CommandSpec(
                "serve", summary: "Serve the library over HTTP (API, media, live events) until SIGINT/SIGTERM.",
                discussion:
                    "Listens on config serve.listen (default 127.0.0.1:8377). Every request needs the token (serve.token, or the first line of serve.tokenFile): API clients send 'Authorization: Bearer TOKEN'; a browser opens http://HOST:PORT/?token=TOKEN once (serve prints that address) and keeps a session cookie. An address other than loopback needs TLS (serve.tls.certificate and serve.tls.key) or serve.behindProxy: true; without a token, or exposed without TLS, serve refuses to start (exit status 2). --new-token prints a new random token and exits.",
                options: [.flag("new-token", help: "Print a new random token (for serve.token) and exit.")]),
            CommandSpec(
                "help", summary: "Print the whole command-line reference: every command with its arguments and options.",
                discussion:
                    "Made from the same declarations the parser and --help read. --format markdown prints docs/command-line.md, --format man the man page photodrop.1 (contrib/man/photodrop.1), text (the default) every command's --help one after the other.",
                options: [
                    .value(
                        "format", "FORMAT", help: "text (default), markdown or man.",
                        allowed: ["text", "markdown", "man"])
                ]),
            CommandSpec(
                "init", summary: "Create the library in the configured folder, on purpose.",
                discussion:
                    "watch and import create a library only where the library folder does not exist yet. A folder that exists without a library in it (the empty mount point of a disk that is not mounted, a wrong path) is refused, so that photodrop never starts a new library beside the real one and files the inbox into it. Run init to create a library in such a folder deliberately. A folder that already holds a library is left as it is."
            ),
            CommandSpec(
                "import", summary: "Import files and folders in one batch.",
                discussion:
                    "A folder is read like an inbox: its subfolders become albums (and folders) by the config's 'albums' mode, as for watch, and files directly in it join the library without an album, unless --album puts everything into one album. Sources are kept (copied, or reflinked where the file system can) unless --move. Files that belong together become one asset as in watch (Live Photos, RAW+JPEG, edits, sidecars; config 'pairWaitSeconds', 'rawAndJpeg'), also with an asset stored by an earlier import; their outcome is 'attached'. After the last commit the new assets get their thumbnail and preview (Library/derivatives/), with a progress line of their own, unless --no-derivatives or config 'derivatives' is 'lazy'; a file the decoders cannot read keeps its asset and gets a recorded failure. A progress bar is shown on a terminal. Exit status 0 when nothing was rejected or failed, 1 otherwise, 2 for usage or configuration errors.",
                positionals: [PositionalSpec("PATH", .oneOrMore, help: "Files or folders to import.")],
                options: [
                    .value("album", "NAME", help: "Put every imported file into this album."),
                    .flag("move", help: "Move the sources into the library instead of copying them."),
                    .flag("dry-run", help: "Report what would happen, touching nothing."),
                    .flag("no-derivatives", help: "Do not make thumbnails and previews now (they are made when needed)."),
                    .flag(
                        "json",
                        help: "Print one summary object: imported, attached, duplicates, rejected, failed, derivatives, items."),
                ]),
            CommandSpec(
                "probe", summary: "Show what photodrop would do with each file, touching nothing.",
                discussion:
                    "Each file is judged by its content, as the daemon would: photo, gif, video or rejected, with the reason code, a message, the MIME type and the metadata found (capture date, size, duration, codecs, camera, location).\n\nCapture date: the first of these that the file has wins — an XMP sidecar; EXIF DateTimeOriginal (with OffsetTimeOriginal, SubSecTimeOriginal); QuickTime creationdate; embedded XMP; EXIF CreateDate, IPTC DateCreated; a Google Takeout sidecar; the movie header (mvhd/tkhd); the GPS time; a date in the file name (IMG_20230101_120000, Screenshot 2023-01-01 at 12.00.00 …); EXIF ModifyDate; the file's mtime. A local time without an offset takes its zone from the file's GPS time when they differ by a whole quarter hour, else it stays floating (shown without an offset). A folder is probed recursively, files in name order; entries whose names start with a dot are skipped, and links to folders are not followed. The video codec lists come from the configuration.\n\nFiles probed together are paired as watch and import would pair them (Live Photos, RAW+JPEG, edits, sidecars): a primary file lists its partners ('with'), a file that would join another's asset has the outcome 'attached' and names the file it joins.\n\nText: one block per file and a summary line. --json: one object per line with path, outcome, reason (code or null), message, mime and the metadata fields, and 'pairing' ({joins, as} or {with: [{path, as}]}) for files that pair. Exit status 0 when every file is accepted, 1 when any is rejected or cannot be read (outcome 'failed').",
                positionals: [PositionalSpec("FILE", .oneOrMore, help: "Files or folders to examine.")],
                options: [.flag("json", help: "Print one JSON object per file, one per line.")]),
            CommandSpec(
                "albums", summary: "List the folders, albums and smart albums.",
                discussion:
                    "Folders and albums as a tree (each level folders first, then albums, in creation order; an album's title is indented below its folder), then the smart albums. Text: a table of identifier (shortened; every command accepts it), type (folder, album or smart), count (assets; for a folder, the albums and folders in it) and title. --json: one object per line in the same order with id, title, count, type (folder, album or smartAlbum), parent (the identifier of the folder it is in, or null) and description (e.g. from a Google Takeout album's metadata.json, or null). " + "Config 'albums' says how folders become albums: 'firstLevel' (default) — the first-level folder is the album and deeper folders file into it (Inbox/2023/Paris/x.jpg → album 2023); 'leaf' — the deepest folder is the album (2023/Paris and 2024/Paris → one album Paris); 'path' — each level is a folder of the library holding the albums (Inbox/2023/Paris/ → folder 2023, album Paris, apart from 2024/Paris). An album remembers the inbox folder it was made for, so renaming it keeps that folder filing into it.",
                options: [.flag("json", help: "Print one JSON object per album, one per line.")]),
            CommandSpec(
                "assets", summary: "List assets.",
                discussion:
                    "Assets in Recently Deleted are listed only with --album 'Recently Deleted'. Listed by capture instant unless --album names a regular album (album order). Text: a table of identifier (shortened), kind, capture date as the local time with its UTC offset ('local' when the zone is unknown, 'UTC' for an instant whose local time is unknown), size, pixels, favourite mark, file name and albums. --json: one object per line with id, kind, mime, sha256, bytes, originalFilename, creationDate (the UTC instant), creationDateSource, localCreationDate, timeZoneOffset, pixelWidth, pixelHeight, duration, isFavorite, albums (titles), path, addedDate, isHidden, isDeleted, location.",
                options: [
                    .value(
                        "album", "NAME",
                        help:
                            "Only assets in this album or smart album: a title, else an identifier (or its unique start)."
                    ),
                    .value("kind", "KIND", help: "Only photos, GIFs or videos.", allowed: ["photo", "gif", "video"]),
                    .flag("favorites", help: "Only favourites."),
                    .flag("json", help: "Print one JSON object per asset, one per line."),
                ]),
            CommandSpec(
                "show", summary: "Show one asset.",
                discussion:
                    "ID is an asset's full identifier (as printed by 'assets --json') or a unique start of it, at least 4 characters (as printed by 'assets'). Assets in Recently Deleted can be shown too. Exit status 1 for an unknown or ambiguous ID.",
                positionals: [PositionalSpec("ID", help: "The asset's identifier, or its unique start.")],
                options: [.flag("json", help: "Print the asset as one JSON object (the fields of 'assets --json').")]),
            CommandSpec(
                "album", summary: "Create, rename or delete albums.",
                subcommands: [
                    CommandSpec(
                        "create", summary: "Create an album.",
                        discussion:
                            "The title is stored in Unicode NFC, like inbox folder names, and must not be taken by another album: the inbox folder of that name files into it. Prints the new album's identifier. Exit status 1 when the title is taken.",
                        positionals: [PositionalSpec("NAME", help: "The album's title.")]),
                    CommandSpec(
                        "rename", summary: "Rename an album.",
                        discussion:
                            "Smart albums cannot be renamed. Exit status 1 for an unknown or ambiguous ID, a smart album, or a title another album has.",
                        positionals: [
                            PositionalSpec("ID", help: "The album's identifier, or its unique start (4+ characters)."),
                            PositionalSpec("NAME", help: "The new title."),
                        ]),
                    CommandSpec(
                        "delete", summary: "Delete an album; its assets stay in the library.",
                        discussion:
                            "Smart albums cannot be deleted. Exit status 1 for an unknown or ambiguous ID or a smart album.",
                        positionals: [
                            PositionalSpec("ID", help: "The album's identifier, or its unique start (4+ characters).")
                        ]),
                ]),
            CommandSpec(
                "favorite", summary: "Mark an asset as a favourite.",
                discussion: "Exit status 0 also when the asset already is (or with --off is not) a favourite.",
                positionals: [
                    PositionalSpec("ID", help: "The asset's identifier, or its unique start (4+ characters).")
                ],
                options: [.flag("off", help: "Remove the favourite mark instead.")]),
            CommandSpec(
                "remove", summary: "Remove an asset from an album (it stays in the library).",
                discussion:
                    "Exit status 1 when the asset is not in the album, or the album is a smart album (their members follow from the assets).",
                positionals: [
                    PositionalSpec("ID", help: "The asset's identifier, or its unique start (4+ characters).")
                ],
                options: [
                    .value(
                        "from", "ALBUM", help: "The album's title, else its identifier (or its unique start).",
                        required: true)
                ]),
            CommandSpec(
                "delete", summary: "Delete an asset (it moves to Recently Deleted).",
                discussion:
                    "The asset leaves its albums' listings and moves to the Recently Deleted smart album; its original stays stored. 'photodrop restore ID', or dropping the same file again, restores it; the daemon purges it after trashDays days (config, default 30), 'photodrop trash empty' at once.",
                positionals: [
                    PositionalSpec("ID", help: "The asset's identifier, or its unique start (4+ characters).")
                ]),
            CommandSpec(
                "restore", summary: "Restore an asset from Recently Deleted.",
                discussion:
                    "The asset comes back into the library and into the albums it was in. Exit status 0 also when the asset is not in Recently Deleted; 1 for an unknown or ambiguous ID.",
                positionals: [
                    PositionalSpec("ID", help: "The asset's identifier, or its unique start (4+ characters).")
                ]),
            CommandSpec(
                "trash", summary: "List or empty Recently Deleted.",
                discussion:
                    "Deleted assets wait in Recently Deleted, restorable, until they are purged: by 'trash empty', or by the running daemon once they were deleted more than trashDays days ago (config; default 30, 0 = never), as Apple Photos does. Purging removes an asset and its stored original for good.",
                subcommands: [
                    CommandSpec(
                        "list", summary: "List the assets in Recently Deleted, most recently deleted first.",
                        discussion:
                            "Text: a table of identifier (shortened), kind, when it was deleted (UTC), when the daemon purges it, size, file name and albums. --json: one asset object per line (as 'assets --json', with deletedDate) plus purgeDate (null when trashDays is 0).",
                        options: [json]),
                    CommandSpec(
                        "empty", summary: "Purge Recently Deleted: the assets and their originals, for good.",
                        discussion:
                            "Without --older-than, every asset in Recently Deleted; with it, those deleted more than DAYS days ago. An asset restored meanwhile (by 'restore', or by a drop of the same content) is kept. The originals are removed once the change is committed, so 'verify' stays clean. --json prints {\"purged\": N}.",
                        options: [
                            .value("older-than", "DAYS", help: "Only assets deleted more than DAYS days ago."),
                            json,
                        ]),
                ], defaultSubcommand: "list"),
            CommandSpec(
                "events", summary: "Print the library's change history as JSON lines.",
                discussion:
                    "One JSON object per committed change, oldest first: token, date, and for assets, albums and folders the identifiers inserted, updated and deleted. Without --since, from the oldest change the library still keeps. Pass a printed token to --since to continue after it. With --follow, changes made by any process (the daemon, other commands) are printed within a fraction of a second, until SIGINT or SIGTERM (exit status 0); without a library yet it waits for one. Exit status 2 for a malformed token, 1 for a token that expired or belongs to another library.",
                options: [
                    .value("since", "TOKEN", help: "Only changes after this change token ('<library id>:<number>')."),
                    .flag("follow", help: "Keep printing new changes as they happen, also those of other processes."),
                    .flag("json", help: "Accepted for symmetry: the output is always JSON lines."),
                ]),
            CommandSpec(
                "thumbnails", summary: "Make the stored thumbnails and previews a library lacks.",
                discussion:
                    "Every asset gets a thumbnail (fits in 512 × 512, WebP) and a preview (fits in 1,440 × 1,440, JPEG) under Library/derivatives/, made from one decode of its original by the render helper (photodrop render-helper), on all cores. By default (--missing) only what is missing, out of date (its original was replaced) or damaged (verify's damagedDerivative) is made; --rebuild makes everything again. A file the decoders cannot read gets a recorded failure and is listed; it is not tried again until --rebuild. Leftover files under derivatives/ older than ten minutes are removed. Safe while the daemon runs. Exit status 1 when a file could not be decoded or the render helper is missing.",
                options: [
                    .flag("missing", help: "Only what is missing, out of date or damaged (the default)."),
                    .flag("rebuild", help: "Make every asset's thumbnail and preview again."),
                    .value("workers", "N", help: "Files decoded at once (default: one per core)."),
                    .flag("json", help: "Print one object: examined, made, failed (id, error), skipped, seconds."),
                ]),
            CommandSpec(
                "thumbnail", summary: "Write a picture of one asset at any size.",
                discussion:
                    "Fits the asset's picture in SIZE × SIZE pixels (512 by default), or with --fill covers that square and crops to the centre; never enlarged. Served from the stored thumbnail or preview when one is large enough, else from the original (a missing thumbnail is made and stored first). The format follows -o's extension: .webp for WebP, anything else JPEG. Without -o the bytes go to stdout, which must not be a terminal.",
                positionals: [PositionalSpec("ID", help: "The asset's identifier, or its unique start.")],
                options: [
                    .value("size", "N", help: "The square to fit in, in pixels (default 512)."),
                    .flag("fill", help: "Cover the square and crop to the centre instead of fitting inside it."),
                    .value("output", "FILE", help: "Write the picture to FILE (.jpg or .webp).", short: "o"),
                ]),
            CommandSpec(
                "verify", summary: "Check the catalog against the files: missing originals, orphan files.",
                discussion:
                    "Reports originals that are missing, unreadable or of the wrong size, files under originals/ no asset refers to, changes a crashed writer left unsettled, files crash recovery set aside, and damage SQLite's quick_check finds. Never changes anything; safe while the daemon runs (files it is placing are not reported). Exit status 0 when no problem was found, 1 otherwise.",
                options: [
                    .flag(
                        "deep",
                        help: "Also re-hash every original (reads every byte) and run SQLite's full integrity_check."),
                    .value(
                        "library", "PATH",
                        help: "Check this backup or library folder instead of the configured library, writing nothing into it. A folder of backups ('photodrop backup DEST') is checked by its newest complete backup."),
                    .flag(
                        "compare",
                        help: "With --library: also compare its catalog row for row with the configured one (after 'photodrop migrate', or a backup of a library nothing was written to since); exit status 1 when they differ."),
                    .flag(
                        "json", help: "Print one object: clean, deep, counts and issues (kind, path, assetId, message)."
                    ),
                ]),
            CommandSpec(
                "backup", summary: "Make a consistent, verified, incremental backup of the library into a folder.",
                discussion:
                    "Safe while the daemon runs, and writes nothing into the library. Each backup is a complete library folder DEST/<UTC time>/ (e.g. DEST/2026-12-02T16-30-00Z): the catalog is copied with SQLite's online backup API (one snapshot), then exactly the originals, thumbnails and previews that snapshot records: a file with the same path, size and SHA-256 in the newest complete backup is hard-linked from it, every other one is copied, hashed and fsynced. Files stored after the snapshot go into the next backup. Then the backup is verified (SQLite integrity_check, every copied file read back and compared with its SHA-256, every recorded file present with its size) and only then renamed from DEST/<time>.incomplete to DEST/<time>. An original removed by a purge during the backup makes the backup incomplete: run it again. DEST must lie outside the library, the inbox and the rejected folder. Restore: stop watch and serve, move a backup folder into place as the library, run 'photodrop verify'. 'photodrop verify --library DEST' checks the newest backup. Exit status 0 when the backup is complete, 1 when it is not, 2 when DEST is refused.",
                positionals: [PositionalSpec("DEST", .one, help: "The backup folder (created when missing).")],
                options: [
                    .flag(
                        "json",
                        help: "Print one object: complete, backup, name, previous, counts (linked, copied, bytes), problems and verification."),
                ]),
            CommandSpec(
                "migrate", summary: "Copy the catalog between SQLite and PostgreSQL, and check the copy.",
                discussion:
                    "--to postgres URL copies the configured library's SQLite catalog into an empty PostgreSQL database (a libpq connection string or URI; the password may come from config catalog.passwordFile), with every asset, album, folder, membership, resource, derivative, journal entry, file record, trash entry and the change history, the same ids and change tokens; --to sqlite PATH copies a PostgreSQL catalog into a new SQLite file. The copy is one transaction, read from one snapshot of the source; then both are read again and compared table by table (row counts and a SHA-256 of the rows). The library's files are not touched and config.json is not changed: set (or remove) catalog.postgres afterwards, as the command says. Stop watch and serve first (on every node). Exit status 0 when the copy is exact, 1 when it differs or fails, 2 for usage errors (a target that is not empty, a SQLite file that exists).",
                positionals: [PositionalSpec("TARGET", .one, help: "The PostgreSQL connection string, or the new SQLite file's path.")],
                options: [.value("to", "KIND", help: "What to copy into.", allowed: ["postgres", "sqlite"])]),
            CommandSpec(
                "status", summary: "Show counts and the daemon's health.",
                discussion:
                    "Assets by kind, favourites, Recently Deleted, albums, stored bytes, the last change, files waiting in the inbox, files claimed by the daemon and not finished, rejected files, whether a 'photodrop watch' daemon runs on the library (and its pid), and health problems such as unreadable folders. Works before a library exists. Exit status 0 when healthy, 1 when a problem is listed.",
                options: [.flag("json", help: "Print one JSON object.")]),
        ])

    /// The parser for the whole table.
    public static let parser = ArgumentParser(root: root, globalOptions: [config])
}
