// libvips behind fixed-argument functions: its operations take NULL-terminated variadic options, which Swift cannot
// call, and VIPS_INIT is a macro. Only what PhotoImaging uses is here.
#ifndef PHOTODROP_CVIPS_SHIM_H
#define PHOTODROP_CVIPS_SHIM_H

#include <vips/vips.h>

/// Starts libvips once per process for untrusted input: only the loaders marked safe for it, no operation cache
/// (every request is a different file), one thread per image pipeline (photodrop runs several images at once).
static inline int pd_vips_start(const char *argv0) {
    if (vips_init(argv0) != 0) return -1;
    vips_block_untrusted_set(TRUE);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    return 0;
}

/// The error text libvips collected on this thread's last failure (to free with g_free), and clears it.
static inline char *pd_vips_take_error(void) { return vips_error_buffer_copy(); }

static inline void pd_vips_free(void *memory) { g_free(memory); }
static inline void pd_vips_unref(void *object) { if (object) g_object_unref(object); }

/// A source over a descriptor (libvips duplicates it: the caller closes its own).
static inline VipsSource *pd_vips_source(int descriptor) { return vips_source_new_from_descriptor(descriptor); }

static inline const char *pd_vips_loader(VipsImage *image) {
    const char *loader = NULL;
    if (vips_image_get_string(image, "vips-loader", &loader) != 0) return NULL;
    return loader;
}

/// The image for decoding: read in one sequential pass, failing on a truncated or damaged file (libvips's thumbnail
/// from a source ignores `fail_on`, libvips issue 5195, so photodrop loads and then shrinks); a JPEG shrunk by
/// `jpeg_shrink` (2, 4 or 8) while it is decoded, through its DCT scaling.
static inline VipsImage *pd_vips_load(VipsSource *source, int jpeg_shrink) {
    if (jpeg_shrink > 1) {
        return vips_image_new_from_source(
            source, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, "shrink", jpeg_shrink,
            NULL);
    }
    return vips_image_new_from_source(
        source, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

static inline int pd_vips_orientation(VipsImage *image) { return vips_image_get_orientation(image); }

/// Shrinks to fit within width × height, never enlarging, turned upright by its orientation tag unless `no_rotate`,
/// converted to sRGB from an embedded profile; with `fill`, fills the box and crops the centre.
static inline int pd_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int fill, int no_rotate) {
    return vips_thumbnail_image(
        in, out, width, "height", height, "size", VIPS_SIZE_DOWN, "no_rotate", no_rotate ? TRUE : FALSE, "crop",
        fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
}

/// 8-bit sRGB: three bands (an alpha channel flattened onto white) when `alpha` is 0, four when the image has alpha
/// and `alpha` is 1, always four (opaque alpha added) when `alpha` is 2.
static inline int pd_vips_to_srgb8(VipsImage *in, VipsImage **out, int alpha) {
    VipsImage *srgb = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL) != 0) return -1;
    VipsImage *banded = NULL;
    int result;
    if (vips_image_hasalpha(srgb)) {
        if (alpha == 0) {
            VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
            result = vips_flatten(srgb, &banded, "background", white, NULL);
            vips_area_unref(VIPS_AREA(white));
        } else {
            result = vips_copy(srgb, &banded, NULL);
        }
    } else {
        result = alpha == 2 ? vips_bandjoin_const1(srgb, &banded, 255.0, NULL) : vips_copy(srgb, &banded, NULL);
    }
    g_object_unref(srgb);
    if (result != 0) return -1;
    result = vips_cast(banded, out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(banded);
    return result;
}

static inline int pd_vips_has_alpha(VipsImage *in) { return vips_image_hasalpha(in); }

/// The image decoded into memory, so that two outputs read one decode.
static inline VipsImage *pd_vips_copy_memory(VipsImage *in) { return vips_image_copy_memory(in); }

/// An image over encoded bytes in memory (not copied: the bytes must outlive it).
static inline VipsImage *pd_vips_image_from_buffer(const void *bytes, size_t length) {
    return vips_image_new_from_buffer(bytes, length, "", NULL);
}

static inline int pd_vips_jpegsave(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

static inline int pd_vips_webpsave(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

/// The pixels, row after row, as the image's bands of 8 bits (to free with g_free).
static inline void *pd_vips_pixels(VipsImage *in, size_t *length) { return vips_image_write_to_memory(in, length); }

#endif
