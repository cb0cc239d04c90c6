// The Ingest module. See ../../README.md.
