import Foundation
import PhotoCatalog

/// `save-to-album --library DIR --album TITLE FILE…`: saves files into an album of a photodrop library, creating the
/// album once, keeping the source files (PhotoKit's default).
///
/// Exit status: 0 when every file was saved (a duplicate counts: the existing asset is added to the album), 1 when
/// some file could not be saved, 2 for a usage error, 3 when the library may not be written.
@main
struct SaveToAlbum {
    static let usage = """
        usage: save-to-album --library DIR --album TITLE FILE…

        Saves each FILE into the album TITLE of the photodrop library in DIR (created if needed), creating the album
        once. Sources are kept. TITLE is Landscapes, Portraits, or any other album title.
        """

    static func main() async {
        var libraryPath: String?
        var albumTitle: String?
        var files: [String] = []
        var arguments = CommandLine.arguments.dropFirst()[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--library": libraryPath = arguments.popFirst()
            case "--album": albumTitle = arguments.popFirst()
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                if argument.hasPrefix("--") { usageError("unknown option '\(argument)'") }
                files.append(argument)
            }
        }
        guard let libraryPath, !libraryPath.isEmpty else { usageError("--library DIR is missing") }
        guard let albumTitle else { usageError("--album TITLE is missing") }
        guard !files.isEmpty else { usageError("no FILE given") }

        let library = PhotoLibrary(url: URL(fileURLWithPath: libraryPath))
        let handler: any PhotoAlbumHandler =
            PhotoAlbums(title: albumTitle)?.album(in: library) ?? NamedAlbum(albumName: albumTitle, library: library)
        do {
            try await handler.checkAuthorization()
        } catch {
            report(error, about: library.url.path)
            exit(3)
        }
        var failures = 0
        for path in files {
            let url = URL(fileURLWithPath: path)
            do {
                let outcome = try await handler.save(url)
                if outcome.createdAlbum { print("created album \"\(handler.albumName)\"") }
                if outcome.isDuplicate {
                    print(
                        "duplicate \(path): already in the library as \(outcome.localIdentifier); in \"\(handler.albumName)\" now"
                    )
                } else {
                    print("saved \(path) -> \(outcome.localIdentifier) in \"\(handler.albumName)\"")
                }
            } catch {
                failures += 1
                report(error, about: path)
            }
        }
        exit(failures == 0 ? 0 : 1)
    }

    static func report(_ error: any Error, about subject: String) {
        let text: String
        if let error = error as? PhotosError {
            text = "\(error.title): \(error.message)"
        } else {
            text = "\(error)"
        }
        FileHandle.standardError.write(Data("save-to-album: \(subject): \(text)\n".utf8))
    }

    static func usageError(_ message: String) -> Never {
        FileHandle.standardError.write(Data("save-to-album: \(message)\n\n\(usage)\n".utf8))
        exit(2)
    }
}
