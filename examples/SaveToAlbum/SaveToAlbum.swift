import PhotoCatalog

@main
struct SaveToAlbumMain {
    static func main() {}
}
