// LibRaw behind a small fixed-argument API, loaded with dlopen by the render helper only (see libraw.c): what
// photodrop shows of a camera RAW file that has no embedded JPEG preview large enough.
#ifndef PHOTODROP_CLIBRAW_H
#define PHOTODROP_CLIBRAW_H

#include <stddef.h>

/// A RAW file's sensor data developed by LibRaw: 8-bit sRGB, rows of width × 3 bytes, upright (LibRaw turns it by
/// the file's orientation). To free with pd_libraw_free.
typedef struct {
    unsigned char *rgb;
    int width;
    int height;
    /// The sensor's size in pixels, before any halving.
    int sensor_width;
    int sensor_height;
} pd_raw_image;

/// Develops the RAW file open at `descriptor` (mapped read-only; never opened by path): camera white balance, sRGB,
/// 8 bits. A sensor of more than `max_pixels` is refused before its data is read. When both halves of the sensor's
/// sides still cover `box` (the largest side wanted), it is developed at half size (four times less work). 0, or -1
/// with the reason in `error`.
int pd_libraw_develop(int descriptor, long long max_pixels, int box, pd_raw_image *image, char *error,
                      size_t error_size);

void pd_libraw_free(pd_raw_image *image);

#endif
