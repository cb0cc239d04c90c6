#ifndef PHOTODROP_CBROTLI_SHIM_H
#define PHOTODROP_CBROTLI_SHIM_H
// Brotli's decoder: JPEG XL containers compress their Exif and XMP boxes into `brob` boxes.
#include <brotli/decode.h>
#endif
