// libvips behind fixed-argument functions, loaded on first use (see vips.c). Only what PhotoImaging uses is here;
// libvips's own types are opaque to Swift.
#ifndef PHOTODROP_CVIPS_H
#define PHOTODROP_CVIPS_H

#include <stddef.h>

typedef struct _VipsImage VipsImage;
typedef struct _VipsSource VipsSource;

/// Loads libvips and starts it once per process for untrusted input: only the loaders marked safe for it, no
/// operation cache (every request is a different file), one thread per image pipeline. 0, or -1 (then
/// pd_vips_take_error says why).
int pd_vips_start(const char *argv0);
/// The error text of this thread's last failure (to free with pd_vips_free_text), and clears it.
char *pd_vips_take_error(void);
/// What libvips and its libraries logged since the last call, one message per line (to free with pd_vips_free_text); they
/// are kept from stderr.
char *pd_vips_take_warnings(void);
/// Forgets what earlier files left in libvips's error buffer and the kept warnings: call before each file.
void pd_vips_forget_messages(void);
/// Empties libvips's error buffer only (before a decode, so that what it holds afterwards is that decode's).
void pd_vips_forget_messages_keeping_warnings(void);
/// Adds a line to the kept warnings.
void pd_vips_add_warning(const char *line);
/// Frees memory libvips handed out (encoded bytes, pixels).
void pd_vips_free(void *memory);
/// Frees a text returned by pd_vips_take_error or pd_vips_take_warnings.
void pd_vips_free_text(char *text);
void pd_vips_unref(void *object);
/// A source over a descriptor (libvips duplicates it: the caller closes its own).
VipsSource *pd_vips_source(int descriptor);
const char *pd_vips_loader(VipsImage *image);
/// A source over bytes in memory (not copied: they must outlive it), e.g. a RAW file's embedded JPEG.
VipsSource *pd_vips_source_memory(const void *bytes, size_t length);
/// An sRGB image over a copy of 8-bit RGB pixels, rows of width × 3 bytes (a decoded video frame).
VipsImage *pd_vips_image_from_rgb(const void *pixels, size_t length, int width, int height);
/// `in` with its EXIF orientation (1…8) set to `orientation` (a RAW's, for its embedded JPEG).
int pd_vips_with_orientation(VipsImage *in, VipsImage **out, int orientation);
/// The image for decoding with the one loader for `format` (jpeg, png, webp, heif, tiff, gif, jxl: what content
/// detection found, never libvips's own guess), read in one sequential pass, failing on a truncated or damaged file;
/// a JPEG shrunk by `jpeg_shrink` (2, 4 or 8) while it is decoded, through its DCT scaling.
VipsImage *pd_vips_load(VipsSource *source, const char *format, int jpeg_shrink);
int pd_vips_orientation(VipsImage *image);
int pd_vips_width(VipsImage *image);
int pd_vips_height(VipsImage *image);
/// Shrinks to fit within width × height, never enlarging, turned upright by its orientation tag unless `no_rotate`,
/// converted to sRGB from an embedded profile; with `fill`, fills the box and crops the centre.
int pd_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int fill, int no_rotate);
/// The rectangle `left`, `top`, `width` × `height` of `in`.
int pd_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height);
/// 8-bit sRGB: three bands (alpha flattened onto white) when `alpha` is 0, four when the image has alpha and `alpha`
/// is 1, always four (opaque alpha added) when `alpha` is 2.
int pd_vips_to_srgb8(VipsImage *in, VipsImage **out, int alpha);
int pd_vips_has_alpha(VipsImage *in);
/// The image decoded into memory, so that several outputs read one decode.
VipsImage *pd_vips_copy_memory(VipsImage *in);
/// An image over encoded bytes in memory (not copied: the bytes must outlive it).
VipsImage *pd_vips_image_from_buffer(const void *bytes, size_t length);
int pd_vips_jpegsave(VipsImage *in, void **buffer, size_t *length, int quality);
/// WebP at `quality`, with libwebp's `effort` (0-6; libvips's default is 4).
int pd_vips_webpsave(VipsImage *in, void **buffer, size_t *length, int quality, int effort);
/// The colour of a high-dynamic-range image (HEIF/AVIF of 10 or 12 bits) as interleaved 16-bit RGB, native byte
/// order, shrunk (never enlarged) so that it fits in `width` × `height`, or covers it with `fill`: for tone mapping,
/// which needs the values as decoded, before any 8-bit conversion. Its size in `out_width` × `out_height`; to free
/// with pd_vips_free.
void *pd_vips_rgb16_pixels(VipsImage *in, int width, int height, int fill, int *out_width, int *out_height,
                           size_t *length);
/// The pixels, row after row, as the image's bands of 8 bits (to free with pd_vips_free).
void *pd_vips_pixels(VipsImage *in, size_t *length);

#endif
