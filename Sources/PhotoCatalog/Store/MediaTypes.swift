/// A small table between file extensions, MIME types and uniform type identifiers for the media photodrop keeps.
/// It only fills in what a caller did not say; photodrop's ingest decides types by content.
enum MediaTypes {
    struct Entry {
        let extensions: [String]
        let mime: String
        let uti: String
    }

    static let entries: [Entry] = [
        Entry(extensions: ["jpg", "jpeg", "jpe"], mime: "image/jpeg", uti: "public.jpeg"),
        Entry(extensions: ["png"], mime: "image/png", uti: "public.png"),
        Entry(extensions: ["gif"], mime: "image/gif", uti: "com.compuserve.gif"),
        Entry(extensions: ["heic"], mime: "image/heic", uti: "public.heic"),
        Entry(extensions: ["heif"], mime: "image/heif", uti: "public.heif"),
        Entry(extensions: ["avif"], mime: "image/avif", uti: "public.avif"),
        Entry(extensions: ["webp"], mime: "image/webp", uti: "org.webmproject.webp"),
        Entry(extensions: ["tif", "tiff"], mime: "image/tiff", uti: "public.tiff"),
        Entry(extensions: ["bmp"], mime: "image/bmp", uti: "com.microsoft.bmp"),
        Entry(extensions: ["dng"], mime: "image/x-adobe-dng", uti: "com.adobe.raw-image"),
        Entry(extensions: ["cr2"], mime: "image/x-canon-cr2", uti: "com.canon.cr2-raw-image"),
        Entry(extensions: ["cr3"], mime: "image/x-canon-cr3", uti: "com.canon.cr3-raw-image"),
        Entry(extensions: ["nef"], mime: "image/x-nikon-nef", uti: "com.nikon.raw-image"),
        Entry(extensions: ["arw"], mime: "image/x-sony-arw", uti: "com.sony.arw-raw-image"),
        Entry(extensions: ["raf"], mime: "image/x-fuji-raf", uti: "com.fuji.raw-image"),
        Entry(extensions: ["orf"], mime: "image/x-olympus-orf", uti: "com.olympus.raw-image"),
        Entry(extensions: ["rw2"], mime: "image/x-panasonic-rw2", uti: "com.panasonic.rw2-raw-image"),
        Entry(extensions: ["mov", "qt"], mime: "video/quicktime", uti: "com.apple.quicktime-movie"),
        Entry(extensions: ["mp4"], mime: "video/mp4", uti: "public.mpeg-4"),
        Entry(extensions: ["m4v"], mime: "video/x-m4v", uti: "com.apple.m4v-video"),
        Entry(extensions: ["3gp"], mime: "video/3gpp", uti: "public.3gpp"),
    ]

    static func mime(forExtension ext: String) -> String? {
        let ext = ext.lowercased()
        return entries.first { $0.extensions.contains(ext) }?.mime
    }

    static func mime(forUTI uti: String) -> String? { entries.first { $0.uti == uti }?.mime }

    static func uti(forMIME mime: String) -> String? {
        let mime = mime.lowercased()
        return entries.first { $0.mime == mime }?.uti
    }

    static func preferredExtension(forMIME mime: String) -> String? {
        let mime = mime.lowercased()
        return entries.first { $0.mime == mime }?.extensions.first
    }
}
