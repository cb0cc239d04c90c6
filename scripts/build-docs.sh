#!/usr/bin/env bash
# Builds the DocC documentation of the library modules (Documentation/PhotoCatalog.docc,
# Documentation/PhotoImageManager.docc) with the toolchain's own tools: swift-symbolgraph-extract reads the built
# modules, docc convert makes the archives, with every warning an error (a link to a symbol that does not exist, a
# parameter left undocumented). The tutorials' code is compiled by `swift build` (targets PhotoCatalogTutorials and
# ImageManagerTutorials) and run by the tests (DocumentationTests).
#
#   scripts/build-docs.sh [OUTPUT]     (default: .build/documentation; needs a debug build: swift build)
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-.build/documentation}"
build=".build/debug"
swift build --target PhotoCatalogTutorials --target ImageManagerTutorials >/dev/null
graphs="$(mktemp -d)"
trap 'rm -rf "$graphs"' EXIT
# The C modules the Swift modules import, as SwiftPM laid out their module maps.
maps=()
for map in "$build"/*.build/module.modulemap Sources/C*/module.modulemap; do
    [ -f "$map" ] && maps+=(-Xcc "-fmodule-map-file=$PWD/$map")
done
mkdir -p "$output"
for module in PhotoCatalog PhotoImageManager; do
    mkdir -p "$graphs/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$build/Modules" "${maps[@]}" \
        -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public -output-dir "$graphs/$module"
    docc convert "Documentation/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "net.photodrop.$module" \
        --warnings-as-errors \
        --output-path "$output/$module.doccarchive"
done
echo "documentation: $output/PhotoCatalog.doccarchive, $output/PhotoImageManager.doccarchive"
