// libvips for PhotoImaging, loaded with dlopen when the first picture is made: photodrop's own start (every
// command, the daemon) never maps libvips and the ~90 libraries it pulls in; only the render helper process does.
// Its operations take NULL-terminated variadic options, which Swift cannot call, and VIPS_INIT is a macro: the
// fixed-argument functions below are what PhotoImaging calls. Each libvips function is reached through a pointer of
// its own declared type (__typeof__), so the compiler checks every call against libvips's headers.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>
#include "CVips.h"

#define PD_VIPS_FUNCTIONS \
    X(g_free) \
    X(g_object_unref) \
    X(vips_area_unref) \
    X(vips_array_double_newv) \
    X(vips_bandjoin_const1) \
    X(vips_block_untrusted_set) \
    X(vips_cache_set_max) \
    X(vips_cache_set_max_files) \
    X(vips_cache_set_max_mem) \
    X(vips_cast) \
    X(vips_colourspace) \
    X(vips_concurrency_set) \
    X(vips_copy) \
    X(vips_error_buffer_copy) \
    X(vips_extract_area) \
    X(vips_flatten) \
    X(vips_image_copy_memory) \
    X(vips_image_get_orientation) \
    X(vips_image_get_string) \
    X(vips_image_hasalpha) \
    X(vips_image_new_from_buffer) \
    X(vips_image_new_from_source) \
    X(vips_image_write_to_memory) \
    X(vips_init) \
    X(vips_jpegsave_buffer) \
    X(vips_source_new_from_descriptor) \
    X(vips_thumbnail_image) \
    X(vips_webpsave_buffer) \
    X(vips_image_get_width) \
    X(vips_image_get_height) \
    X(vips_error_clear) \
    X(vips_error_buffer) \
    X(g_log_set_default_handler) \
    X(vips_image_new_from_memory_copy) \
    X(vips_source_new_from_memory) \
    X(vips_image_set_int) \
    X(vips_jpegload_source) \
    X(vips_pngload_source) \
    X(vips_webpload_source) \
    X(vips_heifload_source) \
    X(vips_tiffload_source) \
    X(vips_gifload_source) \
    X(vips_jxlload_source) \
    X(vips_error) \
    X(vips_resize) \
    X(vips_extract_band) \
    X(vips_image_get_bands) \
    X(vips_image_get_interpretation)

#define X(name) static __typeof__(name) *fn_##name;
PD_VIPS_FUNCTIONS
#undef X

static char load_failure[512];

// What libvips and the libraries under it (libheif, libtiff, libjpeg through libvips) log, kept for the caller
// instead of going to stderr: the render helper hands it to photodrop's logger with the file it belongs to.
static pthread_mutex_t warnings_lock = PTHREAD_MUTEX_INITIALIZER;
static char warnings[8192];
static size_t warnings_length;

static void pd_log_handler(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)data;
    // Warnings and worse only: libvips's start-up and debug messages are not about the file.
    if (!(level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))) return;
    pthread_mutex_lock(&warnings_lock);
    int written = snprintf(warnings + warnings_length, sizeof warnings - warnings_length, "%s%s%s\n",
                           domain ? domain : "", domain ? ": " : "", message ? message : "");
    if (written > 0) {
        warnings_length += (size_t)written;
        if (warnings_length >= sizeof warnings) warnings_length = sizeof warnings - 1;
    }
    pthread_mutex_unlock(&warnings_lock);
}

/// Loads libvips (the soname of Debian 12's libvips42) and finds every function used here; 1 on success.
static int pd_vips_load_library(void) {
    void *library = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_failure, sizeof load_failure, "cannot load libvips.so.42 (%s)", dlerror());
        return 0;
    }
#define X(name)                                                                                                     \
    fn_##name = (__typeof__(name) *)dlsym(library, #name);                                                         \
    if (!fn_##name) {                                                                                                \
        snprintf(load_failure, sizeof load_failure, "libvips.so.42 has no %s", #name);                              \
        return 0;                                                                                                   \
    }
    PD_VIPS_FUNCTIONS
#undef X
    return 1;
}

// From here on, every libvips call goes through its pointer.
#define g_free (*fn_g_free)
#define g_log_set_default_handler (*fn_g_log_set_default_handler)
#define vips_image_new_from_memory_copy (*fn_vips_image_new_from_memory_copy)
#define vips_source_new_from_memory (*fn_vips_source_new_from_memory)
#define vips_image_set_int (*fn_vips_image_set_int)
#define vips_jpegload_source (*fn_vips_jpegload_source)
#define vips_pngload_source (*fn_vips_pngload_source)
#define vips_webpload_source (*fn_vips_webpload_source)
#define vips_heifload_source (*fn_vips_heifload_source)
#define vips_tiffload_source (*fn_vips_tiffload_source)
#define vips_gifload_source (*fn_vips_gifload_source)
#define vips_jxlload_source (*fn_vips_jxlload_source)
#define vips_error (*fn_vips_error)
#define vips_resize (*fn_vips_resize)
#define vips_extract_band (*fn_vips_extract_band)
#define vips_image_get_bands (*fn_vips_image_get_bands)
#define vips_image_get_interpretation (*fn_vips_image_get_interpretation)
#define g_object_unref (*fn_g_object_unref)
#define vips_area_unref (*fn_vips_area_unref)
#define vips_array_double_newv (*fn_vips_array_double_newv)
#define vips_bandjoin_const1 (*fn_vips_bandjoin_const1)
#define vips_block_untrusted_set (*fn_vips_block_untrusted_set)
#define vips_cache_set_max (*fn_vips_cache_set_max)
#define vips_cache_set_max_files (*fn_vips_cache_set_max_files)
#define vips_cache_set_max_mem (*fn_vips_cache_set_max_mem)
#define vips_cast (*fn_vips_cast)
#define vips_colourspace (*fn_vips_colourspace)
#define vips_concurrency_set (*fn_vips_concurrency_set)
#define vips_copy (*fn_vips_copy)
#define vips_error_buffer_copy (*fn_vips_error_buffer_copy)
#define vips_extract_area (*fn_vips_extract_area)
#define vips_flatten (*fn_vips_flatten)
#define vips_image_copy_memory (*fn_vips_image_copy_memory)
#define vips_image_get_orientation (*fn_vips_image_get_orientation)
#define vips_image_get_string (*fn_vips_image_get_string)
#define vips_image_hasalpha (*fn_vips_image_hasalpha)
#define vips_image_new_from_buffer (*fn_vips_image_new_from_buffer)
#define vips_image_new_from_source (*fn_vips_image_new_from_source)
#define vips_image_write_to_memory (*fn_vips_image_write_to_memory)
#define vips_init (*fn_vips_init)
#define vips_jpegsave_buffer (*fn_vips_jpegsave_buffer)
#define vips_source_new_from_descriptor (*fn_vips_source_new_from_descriptor)
#define vips_thumbnail_image (*fn_vips_thumbnail_image)
#define vips_webpsave_buffer (*fn_vips_webpsave_buffer)
#define vips_image_get_width (*fn_vips_image_get_width)
#define vips_image_get_height (*fn_vips_image_get_height)
#define vips_error_clear (*fn_vips_error_clear)
#define vips_error_buffer (*fn_vips_error_buffer)

/// Starts libvips once per process for untrusted input: only the loaders marked safe for it, no operation cache
/// (every request is a different file), one thread per image pipeline (photodrop runs several images at once).
int pd_vips_start(const char *argv0) {
    if (!pd_vips_load_library()) return -1;
    g_log_set_default_handler(pd_log_handler, NULL);
    if (vips_init(argv0) != 0) return -1;
    vips_block_untrusted_set(TRUE);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    return 0;
}

/// The error text libvips collected on this thread's last failure (to free with free()), and clears it.
char *pd_vips_take_error(void) {
    if (load_failure[0]) return strdup(load_failure);
    char *text = vips_error_buffer_copy();
    char *copy = strdup(text ? text : "");
    g_free(text);
    return copy;
}

int pd_vips_width(VipsImage *image) { return vips_image_get_width(image); }
int pd_vips_height(VipsImage *image) { return vips_image_get_height(image); }

void pd_vips_free(void *memory) { g_free(memory); }
void pd_vips_unref(void *object) { if (object) g_object_unref(object); }

/// A source over a descriptor (libvips duplicates it: the caller closes its own).
VipsSource *pd_vips_source(int descriptor) { return vips_source_new_from_descriptor(descriptor); }

const char *pd_vips_loader(VipsImage *image) {
    const char *loader = NULL;
    if (vips_image_get_string(image, "vips-loader", &loader) != 0) return NULL;
    return loader;
}

/// The image for decoding: read in one sequential pass, failing on a truncated or damaged file (libvips's thumbnail
/// from a source ignores `fail_on`, libvips issue 5195, so photodrop loads and then shrinks); a JPEG shrunk by
/// `jpeg_shrink` (2, 4 or 8) while it is decoded, through its DCT scaling.
VipsImage *pd_vips_load(VipsSource *source, const char *format, int jpeg_shrink) {
    VipsImage *image = NULL;
    int result = -1;
    if (strcmp(format, "jpeg") == 0) {
        result = jpeg_shrink > 1
            ? vips_jpegload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                   VIPS_FAIL_ON_TRUNCATED, "shrink", jpeg_shrink, NULL)
            : vips_jpegload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                   VIPS_FAIL_ON_TRUNCATED, NULL);
    } else if (strcmp(format, "png") == 0) {
        result = vips_pngload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                     VIPS_FAIL_ON_TRUNCATED, NULL);
    } else if (strcmp(format, "webp") == 0) {
        result = vips_webpload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                      VIPS_FAIL_ON_TRUNCATED, NULL);
    } else if (strcmp(format, "heif") == 0) {
        result = vips_heifload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                      VIPS_FAIL_ON_TRUNCATED, NULL);
    } else if (strcmp(format, "tiff") == 0) {
        result = vips_tiffload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                      VIPS_FAIL_ON_TRUNCATED, NULL);
    } else if (strcmp(format, "gif") == 0) {
        result = vips_gifload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                     VIPS_FAIL_ON_TRUNCATED, NULL);
    } else if (strcmp(format, "jxl") == 0) {
        result = vips_jxlload_source(source, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                     VIPS_FAIL_ON_TRUNCATED, NULL);
    } else {
        vips_error("photodrop", "no decoder for the format '%s'", format);
        return NULL;
    }
    return result == 0 ? image : NULL;
}

int pd_vips_orientation(VipsImage *image) { return vips_image_get_orientation(image); }

/// Shrinks to fit within width × height, never enlarging, turned upright by its orientation tag unless `no_rotate`,
/// converted to sRGB from an embedded profile; with `fill`, fills the box and crops the centre.
int pd_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int fill, int no_rotate) {
    return vips_thumbnail_image(
        in, out, width, "height", height, "size", VIPS_SIZE_DOWN, "no_rotate", no_rotate ? TRUE : FALSE, "crop",
        fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
}

/// The rectangle `left`, `top`, `width` × `height` of `in`.
int pd_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

/// 8-bit sRGB: three bands (an alpha channel flattened onto white) when `alpha` is 0, four when the image has alpha
/// and `alpha` is 1, always four (opaque alpha added) when `alpha` is 2.
int pd_vips_to_srgb8(VipsImage *in, VipsImage **out, int alpha) {
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

int pd_vips_has_alpha(VipsImage *in) { return vips_image_hasalpha(in); }

/// The image decoded into memory, so that two outputs read one decode.
VipsImage *pd_vips_copy_memory(VipsImage *in) { return vips_image_copy_memory(in); }

/// An image over encoded bytes in memory (not copied: the bytes must outlive it).
VipsImage *pd_vips_image_from_buffer(const void *bytes, size_t length) {
    return vips_image_new_from_buffer(bytes, length, "", NULL);
}

int pd_vips_jpegsave(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

int pd_vips_webpsave(VipsImage *in, void **buffer, size_t *length, int quality, int effort) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "effort", effort, NULL);
}

/// The pixels, row after row, as the image's bands of 8 bits (to free with g_free).
void *pd_vips_pixels(VipsImage *in, size_t *length) { return vips_image_write_to_memory(in, length); }


/// Forgets what an earlier file left in libvips's error buffer and the warnings kept since: libvips clears the
/// buffer only when it is read, and a decoder's warnings on a file that was decoded all the same (libjpeg's "Corrupt
/// JPEG data") are written there too, so the next file's failure would carry them.
void pd_vips_forget_messages(void) {
    if (fn_vips_error_clear) vips_error_clear();
    pthread_mutex_lock(&warnings_lock);
    warnings_length = 0;
    warnings[0] = 0;
    pthread_mutex_unlock(&warnings_lock);
}

void pd_vips_forget_messages_keeping_warnings(void) {
    if (fn_vips_error_clear) vips_error_clear();
}

void pd_vips_add_warning(const char *line) { pd_log_handler("VipsJpeg", G_LOG_LEVEL_WARNING, line, NULL); }

char *pd_vips_take_warnings(void) {
    pthread_mutex_lock(&warnings_lock);
    char *copy = strndup(warnings, warnings_length);
    warnings_length = 0;
    warnings[0] = 0;
    pthread_mutex_unlock(&warnings_lock);
    return copy;
}

VipsSource *pd_vips_source_memory(const void *bytes, size_t length) {
    return vips_source_new_from_memory(bytes, length);
}

int pd_vips_with_orientation(VipsImage *in, VipsImage **out, int orientation) {
    if (vips_copy(in, out, NULL) != 0) return -1;
    vips_image_set_int(*out, "orientation", orientation);
    return 0;
}

VipsImage *pd_vips_image_from_rgb(const void *pixels, size_t length, int width, int height) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, 3, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

void *pd_vips_rgb16_pixels(VipsImage *in, int width, int height, int fill, int *out_width, int *out_height,
                           size_t *length) {
    int bands = vips_image_get_bands(in);
    if (bands != 3 && bands != 4) {
        vips_error("photodrop", "an HDR photo with %d bands", bands);
        return NULL;
    }
    VipsImage *rgb = NULL, *deep = NULL, *resized = NULL;
    void *pixels = NULL;
    // The colour bands only (an alpha channel is dropped), as 16 bits (an 8-bit image is scaled up by 257).
    if (bands == 4 ? vips_extract_band(in, &rgb, 0, "n", 3, NULL) : vips_copy(in, &rgb, NULL)) goto done;
    if (vips_image_get_interpretation(rgb) == VIPS_INTERPRETATION_RGB16) {
        if (vips_cast(rgb, &deep, VIPS_FORMAT_USHORT, NULL)) goto done;
    } else if (vips_colourspace(rgb, &deep, VIPS_INTERPRETATION_RGB16, NULL)) {
        goto done;
    }
    double across = (double)width / vips_image_get_width(deep), down = (double)height / vips_image_get_height(deep);
    double scale = fill ? (across > down ? across : down) : (across < down ? across : down);
    if (scale < 1) {
        if (vips_resize(deep, &resized, scale, NULL)) goto done;
    } else if (vips_copy(deep, &resized, NULL)) {
        goto done;
    }
    pixels = vips_image_write_to_memory(resized, length);
    if (pixels) {
        *out_width = vips_image_get_width(resized);
        *out_height = vips_image_get_height(resized);
    }
done:
    if (rgb) g_object_unref(rgb);
    if (deep) g_object_unref(deep);
    if (resized) g_object_unref(resized);
    return pixels;
}

void pd_vips_free_text(char *text) { free(text); }
