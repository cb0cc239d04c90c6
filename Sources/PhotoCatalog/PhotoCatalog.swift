// The PhotoCatalog module. See ../../README.md.
