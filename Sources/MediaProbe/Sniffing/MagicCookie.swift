import CMagic

/// One libmagic handle (`magic_t`) set up for fast MIME typing of media: `MAGIC_MIME_TYPE | MAGIC_ERROR`, the built-in
/// tests that media never needs switched off, and a small `MAGIC_PARAM_BYTES_MAX`.
///
/// A cookie is confined to one thread (libmagic keeps per-cookie scratch state); ``MediaProber`` owns one.
final class MagicCookie {
    /// The flags: MIME type only, real errors, and no compressed-file, tar, ELF, CDF, CSV, JSON, token, encoding or
    /// application-type checks. The soft (database) tests and the text test stay on: they name the non-media files
    /// photodrop rejects (`text/plain`, `application/pdf`, `video/x-matroska` …).
    static let flags: Int32 =
        MAGIC_MIME_TYPE | MAGIC_ERROR | MAGIC_NO_CHECK_COMPRESS | MAGIC_NO_CHECK_TAR | MAGIC_NO_CHECK_ELF
        | MAGIC_NO_CHECK_CDF | MAGIC_NO_CHECK_CSV | MAGIC_NO_CHECK_JSON | MAGIC_NO_CHECK_TOKENS
        | MAGIC_NO_CHECK_ENCODING | MAGIC_NO_CHECK_APPTYPE

    /// How many bytes libmagic may look at.
    static let bytesMax = 64 * 1024

    private let cookie: magic_t

    /// Opens libmagic and loads its default compiled database (`magic.mgc`), or the one at `databasePath`.
    init(flags: Int32 = MagicCookie.flags, databasePath: String? = nil) throws(ProbeError) {
        guard let cookie = magic_open(flags) else {
            throw ProbeError(
                code: .magicDatabase, path: databasePath,
                message: "libmagic could not be initialised (magic_open failed); reinstall libmagic1")
        }
        let loaded = databasePath.map { magic_load(cookie, $0) } ?? magic_load(cookie, nil)
        guard loaded == 0 else {
            let reason = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            magic_close(cookie)
            let which = databasePath.map { "'\($0)'" } ?? "the default database (magic.mgc)"
            throw ProbeError(
                code: .magicDatabase, path: databasePath,
                message: "libmagic could not load \(which): \(reason); install the compiled magic database "
                    + "(Debian/Ubuntu: `apt-get install libmagic-mgc`)")
        }
        var limit = Self.bytesMax
        _ = magic_setparam(cookie, MAGIC_PARAM_BYTES_MAX, &limit)
        self.cookie = cookie
    }

    deinit {
        magic_close(cookie)
    }

    /// The MIME type of the bytes, or `nil` when libmagic reports an error.
    func mimeType(of bytes: [UInt8], count: Int) -> String? {
        let n = min(count, bytes.count, Self.bytesMax)
        return bytes.withUnsafeBytes { raw -> String? in
            guard let answer = magic_buffer(cookie, raw.baseAddress, n) else { return nil }
            return String(cString: answer)
        }
    }
}

@available(*, unavailable, message: "a libmagic cookie must stay on one thread; give each worker its own")
extension MagicCookie: Sendable {}
