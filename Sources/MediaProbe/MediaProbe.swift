// The MediaProbe module. See ../../README.md.
