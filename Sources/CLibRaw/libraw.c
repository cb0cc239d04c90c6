// LibRaw (Debian 12: libraw20, LibRaw 0.20) for the render helper, loaded with dlopen when the first RAW without a
// usable embedded preview is shown: no other photodrop process maps it. Each function is reached through a pointer of
// its own declared type (__typeof__), so the compiler checks every call against LibRaw's header. The file is read
// from memory (the descriptor mapped read-only), never by path.
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <libraw/libraw.h>

#include "CLibRaw.h"

#define PD_LIBRAW_FUNCTIONS \
    X(libraw_init) \
    X(libraw_open_buffer) \
    X(libraw_unpack) \
    X(libraw_dcraw_process) \
    X(libraw_dcraw_make_mem_image) \
    X(libraw_dcraw_clear_mem) \
    X(libraw_close) \
    X(libraw_strerror) \
    X(libraw_set_dataerror_handler) \
    X(libraw_set_memerror_handler)

#define X(name) static __typeof__(name) *fn_##name;
PD_LIBRAW_FUNCTIONS
#undef X

/// Loads LibRaw once; 0, or -1 with the reason in `error`.
static int pd_libraw_start(char *error, size_t error_size) {
    static int started = 0;
    static char failure[512];
    if (!started) {
        started = 1;
        // The reentrant build: the render helper may develop on more than one thread.
        void *library = dlopen("libraw_r.so.20", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            snprintf(failure, sizeof failure, "cannot load libraw_r.so.20 (%s); install Debian's libraw20", dlerror());
        } else {
#define X(name)                                                                                                        \
    if (!failure[0] && !(fn_##name = (__typeof__(name) *)dlsym(library, #name)))                                      \
        snprintf(failure, sizeof failure, "libraw_r.so.20 has no %s", #name);
            PD_LIBRAW_FUNCTIONS
#undef X
        }
    }
    if (failure[0]) snprintf(error, error_size, "%s", failure);
    return failure[0] ? -1 : 0;
}

/// What LibRaw reported while it read one file (it would print it to stderr otherwise).
typedef struct {
    int data_errors;
    long long first_offset;
    char memory[256];
} pd_raw_problems;

static void on_data_error(void *data, const char *file, const int offset) {
    (void)file;
    pd_raw_problems *problems = data;
    if (problems->data_errors++ == 0) problems->first_offset = offset;
}

static void on_memory_error(void *data, const char *file, const char *where) {
    (void)file;
    pd_raw_problems *problems = data;
    if (!problems->memory[0]) snprintf(problems->memory, sizeof problems->memory, "%s", where ? where : "?");
}

int pd_libraw_develop(int descriptor, long long max_pixels, int box, pd_raw_image *image, char *error,
                      size_t error_size) {
    memset(image, 0, sizeof *image);
    if (pd_libraw_start(error, error_size) != 0) return -1;
    struct stat info;
    if (fstat(descriptor, &info) != 0) {
        snprintf(error, error_size, "fstat: %s", strerror(errno));
        return -1;
    }
    if (info.st_size <= 0) {
        snprintf(error, error_size, "the RAW file is empty");
        return -1;
    }
    void *mapped = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, descriptor, 0);
    if (mapped == MAP_FAILED) {
        snprintf(error, error_size, "mapping the RAW file: %s", strerror(errno));
        return -1;
    }
    int result = -1, code;
    libraw_processed_image_t *developed = NULL;
    libraw_data_t *raw = fn_libraw_init(0);
    pd_raw_problems problems = {0};
    if (!raw) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    fn_libraw_set_dataerror_handler(raw, on_data_error, &problems);
    fn_libraw_set_memerror_handler(raw, on_memory_error, &problems);
    if ((code = fn_libraw_open_buffer(raw, mapped, (size_t)info.st_size)) != LIBRAW_SUCCESS) {
        snprintf(error, error_size, "LibRaw cannot read this RAW file: %s", fn_libraw_strerror(code));
        goto done;
    }
    long long pixels = (long long)raw->sizes.raw_width * raw->sizes.raw_height;
    if (pixels <= 0) {
        snprintf(error, error_size, "the RAW file declares no sensor size (%d × %d pixels); its headers are damaged",
                 raw->sizes.raw_width, raw->sizes.raw_height);
        goto done;
    }
    if (pixels > max_pixels) {
        snprintf(error, error_size, "the RAW file claims %d × %d sensor pixels, more than the %lld photodrop decodes",
                 raw->sizes.raw_width, raw->sizes.raw_height, max_pixels);
        goto done;
    }
    image->sensor_width = raw->sizes.width;
    image->sensor_height = raw->sizes.height;
    int longest = raw->sizes.width > raw->sizes.height ? raw->sizes.width : raw->sizes.height;
    raw->params.half_size = longest / 2 >= box ? 1 : 0;
    raw->params.use_camera_wb = 1;
    raw->params.output_color = 1;  // sRGB
    raw->params.output_bps = 8;
    raw->params.user_qual = raw->params.half_size ? 0 : 1;  // bilinear at half size, VNG at full size
    if ((code = fn_libraw_unpack(raw)) != LIBRAW_SUCCESS) {
        snprintf(error, error_size, "LibRaw cannot read the sensor data: %s", fn_libraw_strerror(code));
        goto done;
    }
    // LibRaw fills what it cannot read with zeros and goes on: a picture of a cut-off or damaged file would be
    // partly garbage, so it is refused, like a truncated JPEG.
    if (problems.data_errors || problems.memory[0]) {
        if (problems.memory[0])
            snprintf(error, error_size, "LibRaw ran out of memory in %s", problems.memory);
        else
            snprintf(error, error_size, "the sensor data is cut short or damaged (LibRaw: data error at byte %lld)",
                     problems.first_offset);
        goto done;
    }
    if ((code = fn_libraw_dcraw_process(raw)) != LIBRAW_SUCCESS) {
        snprintf(error, error_size, "LibRaw cannot develop the sensor data: %s", fn_libraw_strerror(code));
        goto done;
    }
    developed = fn_libraw_dcraw_make_mem_image(raw, &code);
    if (!developed) {
        snprintf(error, error_size, "LibRaw cannot make the picture: %s", fn_libraw_strerror(code));
        goto done;
    }
    size_t length = (size_t)developed->width * developed->height * 3;
    if (developed->type != LIBRAW_IMAGE_BITMAP || developed->colors != 3 || developed->bits != 8 ||
        developed->data_size < length || length == 0) {
        snprintf(error, error_size, "LibRaw made a %d-colour, %d-bit picture, not 8-bit RGB", developed->colors,
                 developed->bits);
        goto done;
    }
    // A file whose sensor data was cut away (as in ExifTool's reduced samples) develops to pure black without any
    // error: nothing to show, so it is refused rather than stored as a black picture.
    size_t lit = 0;
    while (lit < length && developed->data[lit] == 0) lit++;
    if (lit == length) {
        snprintf(error, error_size, "LibRaw found no picture in the sensor data (every pixel is black); the file may "
                                    "have been cut short");
        goto done;
    }
    image->rgb = malloc(length);
    if (!image->rgb) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    memcpy(image->rgb, developed->data, length);
    image->width = developed->width;
    image->height = developed->height;
    result = 0;
done:
    if (developed) fn_libraw_dcraw_clear_mem(developed);
    if (raw) fn_libraw_close(raw);
    munmap(mapped, (size_t)info.st_size);
    return result;
}

void pd_libraw_free(pd_raw_image *image) {
    free(image->rgb);
    image->rgb = NULL;
}
