import Foundation
import PhotoCatalog
import PhotoImageManager
import Rendering

/// A square thumbnail for a grid and a fitted picture for a viewer, of one asset.
public func gridAndViewerPictures(
    of identifier: String, library: PhotoLibrary, pool: RenderPool
) throws -> (grid: ImageResult, viewer: ImageResult) {
    let manager = ImageManager(library: library, pool: pool)
    // A grid cell: 300 × 300, filled and cropped to the centre.
    let grid = try manager.image(
        for: identifier, targetSize: PixelSize(width: 300, height: 300), contentMode: .aspectFill)
    // A viewer: the whole picture within 1,200 × 800, exactly that size, as WebP.
    let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, format: .webp)
    let viewer = try manager.image(
        for: identifier, targetSize: PixelSize(width: 1200, height: 800), contentMode: .aspectFit, options: options)
    return (grid, viewer)
}

/// Prepares the grid pictures of the assets about to scroll into view, and answers from memory when they do.
public func prepareGrid(
    _ assets: [Asset], library: PhotoLibrary, pool: RenderPool
) -> CachingImageManager {
    let manager = CachingImageManager(library: library, pool: pool, memoryLimit: 32 << 20)
    manager.startCachingImages(
        for: assets, targetSize: PixelSize(width: 300, height: 300), contentMode: .aspectFill, options: nil)
    return manager
}
