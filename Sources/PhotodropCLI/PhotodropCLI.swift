// The PhotodropCLI module. See ../../README.md.
