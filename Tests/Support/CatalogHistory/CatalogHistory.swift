import PhotoCatalog

@main
struct CatalogHistoryMain {
    static func main() {}
}
