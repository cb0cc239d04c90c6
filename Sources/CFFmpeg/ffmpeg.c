// FFmpeg for the render helper's video pictures, loaded with dlopen on first use: no other photodrop process maps
// libavformat, libavcodec and what they pull in. Each FFmpeg function is reached through a pointer of its own
// declared type (__typeof__), so the compiler checks every call against FFmpeg's headers (Debian 12: FFmpeg 5.1).
//
// Untrusted input: the file is read through an AVIOContext over the descriptor photodrop opened (pread, never a
// path), only the demuxers and decoders of the allow-lists below are used, and a frame larger than the pixel limit
// is refused from the stream's header before anything is decoded.
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libswscale/swscale.h>

#include "CFFmpeg.h"

/// Containers photodrop accepts as video (and what content detection can call them).
static const char *const demuxers = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,mpeg,mpegps,flv,ogg,asf,dv";
/// Video decoders for what phones, cameras and the web record.
static const char *const decoders =
    "h264,hevc,mpeg4,h263,h263p,vp8,vp9,av1,libdav1d,mjpeg,prores,mpeg1video,mpeg2video,theora,wmv1,wmv2,wmv3,vc1,"
    "dvvideo,flv,msmpeg4v1,msmpeg4v2,msmpeg4v3";

#define PD_FFMPEG_FUNCTIONS                                                                                            \
    X(avformat_alloc_context)                                                                                          \
    X(avformat_open_input)                                                                                             \
    X(avformat_find_stream_info)                                                                                       \
    X(av_find_best_stream)                                                                                             \
    X(avformat_close_input)                                                                                            \
    X(avio_alloc_context)                                                                                              \
    X(avio_context_free)                                                                                               \
    X(av_malloc)                                                                                                       \
    X(av_freep)                                                                                                        \
    X(avcodec_alloc_context3)                                                                                          \
    X(avcodec_parameters_to_context)                                                                                   \
    X(avcodec_open2)                                                                                                   \
    X(avcodec_free_context)                                                                                            \
    X(avcodec_send_packet)                                                                                             \
    X(avcodec_receive_frame)                                                                                           \
    X(avcodec_flush_buffers)                                                                                           \
    X(av_packet_alloc)                                                                                                 \
    X(av_packet_free)                                                                                                  \
    X(av_packet_unref)                                                                                                 \
    X(av_frame_alloc)                                                                                                  \
    X(av_frame_free)                                                                                                   \
    X(av_seek_frame)                                                                                                   \
    X(av_read_frame)                                                                                                   \
    X(av_dict_set)                                                                                                     \
    X(av_dict_free)                                                                                                    \
    X(av_strerror)                                                                                                     \
    X(av_log_set_callback)                                                                                             \
    X(av_log_set_level)                                                                                                \
    X(av_log_format_line)                                                                                              \
    X(av_display_rotation_get)                                                                                         \
    X(av_stream_get_side_data)                                                                                         \
    X(sws_getContext)                                                                                                  \
    X(sws_scale)                                                                                                       \
    X(sws_freeContext)

#define X(name) static __typeof__(name) *fn_##name;
PD_FFMPEG_FUNCTIONS
#undef X

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[8192];
static size_t log_length;

static void pd_ffmpeg_log(void *context, int level, const char *format, va_list arguments) {
    if (level > AV_LOG_WARNING) return;
    char line[1024];
    int prefix = 1;
    fn_av_log_format_line(context, level, format, arguments, line, sizeof line, &prefix);
    pthread_mutex_lock(&log_lock);
    int written = snprintf(log_text + log_length, sizeof log_text - log_length, "%s", line);
    if (written > 0) {
        log_length += (size_t)written;
        if (log_length >= sizeof log_text) log_length = sizeof log_text - 1;
    }
    pthread_mutex_unlock(&log_lock);
}

int pd_ffmpeg_start(char *error, size_t error_size) {
    static int started = 0;
    static char failure[512];
    if (started) {
        if (failure[0]) snprintf(error, error_size, "%s", failure);
        return failure[0] ? -1 : 0;
    }
    started = 1;
    const char *libraries[] = {"libavutil.so.57", "libswresample.so.4", "libavcodec.so.59", "libavformat.so.59",
                               "libswscale.so.6"};
    for (size_t index = 0; index < sizeof libraries / sizeof libraries[0]; index++) {
        if (!dlopen(libraries[index], RTLD_NOW | RTLD_GLOBAL)) {
            snprintf(failure, sizeof failure, "cannot load %s (%s); install Debian's ffmpeg libraries",
                     libraries[index], dlerror());
            snprintf(error, error_size, "%s", failure);
            return -1;
        }
    }
#define X(name)                                                                                                        \
    fn_##name = (__typeof__(name) *)dlsym(RTLD_DEFAULT, #name);                                                        \
    if (!fn_##name) {                                                                                                  \
        snprintf(failure, sizeof failure, "FFmpeg has no %s", #name);                                                  \
        snprintf(error, error_size, "%s", failure);                                                                    \
        return -1;                                                                                                     \
    }
    PD_FFMPEG_FUNCTIONS
#undef X
    fn_av_log_set_level(AV_LOG_WARNING);
    fn_av_log_set_callback(pd_ffmpeg_log);
    return 0;
}

char *pd_ffmpeg_take_log(void) {
    pthread_mutex_lock(&log_lock);
    char *copy = strndup(log_text, log_length);
    log_length = 0;
    log_text[0] = 0;
    pthread_mutex_unlock(&log_lock);
    return copy;
}

void pd_ffmpeg_free_frame(pd_video_frame *frame) {
    free(frame->rgb);
    frame->rgb = NULL;
}

// MARK: Reading from the descriptor

typedef struct {
    int descriptor;
    int64_t position;
    int64_t size;
} pd_reader;

static int pd_read(void *opaque, uint8_t *buffer, int size) {
    pd_reader *reader = opaque;
    ssize_t count;
    do {
        count = pread(reader->descriptor, buffer, (size_t)size, reader->position);
    } while (count < 0 && errno == EINTR);
    if (count < 0) return AVERROR(errno);
    if (count == 0) return AVERROR_EOF;
    reader->position += count;
    return (int)count;
}

static int64_t pd_seek(void *opaque, int64_t offset, int whence) {
    pd_reader *reader = opaque;
    if (whence & AVSEEK_SIZE) return reader->size;
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: reader->position = offset; break;
    case SEEK_CUR: reader->position += offset; break;
    case SEEK_END: reader->position = reader->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    return reader->position;
}

// MARK: The poster frame

static void describe(int code, const char *what, char *error, size_t error_size) {
    char reason[256] = "unknown error";
    fn_av_strerror(code, reason, sizeof reason);
    snprintf(error, error_size, "%s: %s", what, reason);
}

/// Scales `frame` to fit in box × box as RGB24 into `out`, with its luma statistics.
static int to_rgb(AVFrame *frame, int box, pd_video_frame *out) {
    double scale = fmin(1.0, fmin((double)box / frame->width, (double)box / frame->height));
    int width = (int)fmax(1, lround(frame->width * scale));
    int height = (int)fmax(1, lround(frame->height * scale));
    struct SwsContext *scaler = fn_sws_getContext(frame->width, frame->height, frame->format, width, height,
                                                  AV_PIX_FMT_RGB24, SWS_AREA, NULL, NULL, NULL);
    if (!scaler) return -1;
    // swscale's vector code writes whole blocks: rows aligned to 64 bytes and padding after the last one. The rows
    // are packed tight afterwards.
    int stride = (width * 3 + 63) & ~63;
    unsigned char *rgb = malloc((size_t)stride * (size_t)height + 256);
    if (!rgb) {
        fn_sws_freeContext(scaler);
        return -1;
    }
    uint8_t *planes[4] = {rgb, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    fn_sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    fn_sws_freeContext(scaler);
    for (int y = 1; y < height; y++) memmove(rgb + (size_t)y * width * 3, rgb + (size_t)y * stride, (size_t)width * 3);
    stride = width * 3;
    double sum = 0, squares = 0;
    size_t count = 0;
    for (int y = 0; y < height; y += 2) {
        const unsigned char *row = rgb + (size_t)y * (size_t)stride;
        for (int x = 0; x < width; x += 2) {
            double luma = 0.299 * row[3 * x] + 0.587 * row[3 * x + 1] + 0.114 * row[3 * x + 2];
            sum += luma;
            squares += luma * luma;
            count++;
        }
    }
    free(out->rgb);
    out->rgb = rgb;
    out->width = width;
    out->height = height;
    out->stride = stride;
    out->mean_luma = count ? sum / count : 0;
    out->luma_deviation = count ? sqrt(fmax(0, squares / count - out->mean_luma * out->mean_luma)) : 0;
    return 0;
}

static int is_shown(const pd_video_frame *frame) { return frame->mean_luma > 16 && frame->luma_deviation > 4; }

int pd_ffmpeg_poster(int descriptor, long long max_pixels, int box, pd_video_frame *out, char *error,
                     size_t error_size) {
    memset(out, 0, sizeof *out);
    if (pd_ffmpeg_start(error, error_size) != 0) return -1;
    struct stat info;
    if (fstat(descriptor, &info) != 0) {
        snprintf(error, error_size, "fstat: %s", strerror(errno));
        return -1;
    }
    pd_reader reader = {.descriptor = descriptor, .position = 0, .size = info.st_size};
    int result = -1;
    AVFormatContext *format = NULL;
    AVIOContext *io = NULL;
    AVCodecContext *decoder = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    AVDictionary *options = NULL;

    unsigned char *buffer = fn_av_malloc(1 << 16);
    io = buffer ? fn_avio_alloc_context(buffer, 1 << 16, 0, &reader, pd_read, NULL, pd_seek) : NULL;
    format = fn_avformat_alloc_context();
    if (!io || !format) {
        snprintf(error, error_size, "out of memory");
        if (!io) fn_av_freep(&buffer);
        goto done;
    }
    format->pb = io;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    fn_av_dict_set(&options, "format_whitelist", demuxers, 0);
    fn_av_dict_set(&options, "codec_whitelist", decoders, 0);
    int code = fn_avformat_open_input(&format, NULL, NULL, &options);
    fn_av_dict_free(&options);
    if (code < 0) {
        describe(code, "not a video container photodrop reads", error, error_size);
        format = NULL;  // freed by avformat_open_input
        goto done;
    }
    if ((code = fn_avformat_find_stream_info(format, NULL)) < 0) {
        describe(code, "the video's streams cannot be read", error, error_size);
        goto done;
    }
    const AVCodec *codec = NULL;
    int index = fn_av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (index < 0 || !codec) {
        snprintf(error, error_size, "the file has no video stream photodrop can decode");
        goto done;
    }
    AVStream *stream = format->streams[index];
    long long pixels = (long long)stream->codecpar->width * stream->codecpar->height;
    if (pixels <= 0 || pixels > max_pixels) {
        snprintf(error, error_size, "the video claims %d × %d pixels per frame, more than the %lld photodrop decodes",
                 stream->codecpar->width, stream->codecpar->height, max_pixels);
        goto done;
    }
    decoder = fn_avcodec_alloc_context3(codec);
    if (!decoder || fn_avcodec_parameters_to_context(decoder, stream->codecpar) < 0) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    decoder->thread_count = 1;
    fn_av_dict_set(&options, "codec_whitelist", decoders, 0);
    code = fn_avcodec_open2(decoder, codec, &options);
    fn_av_dict_free(&options);
    if (code < 0) {
        describe(code, "the video's codec cannot be decoded", error, error_size);
        goto done;
    }

    double base = av_q2d(stream->time_base);
    double duration = stream->duration != AV_NOPTS_VALUE ? stream->duration * base
                      : format->duration != AV_NOPTS_VALUE ? (double)format->duration / AV_TIME_BASE
                                                            : 0;
    double start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time * base : 0;
    double target = duration >= 10 ? 1.0 : duration * 0.1;
    out->duration = duration;
    uint8_t *matrix = fn_av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        double theta = -fn_av_display_rotation_get((const int32_t *)matrix);
        theta -= 360 * floor(theta / 360 + 0.9 / 360);
        out->rotation = ((int)lround(theta / 90) % 4) * 90;
    }
    if (target > 0) {
        int64_t timestamp = (int64_t)((start + target) / base);
        if (fn_av_seek_frame(format, index, timestamp, AVSEEK_FLAG_BACKWARD) >= 0) fn_avcodec_flush_buffers(decoder);
    }
    packet = fn_av_packet_alloc();
    frame = fn_av_frame_alloc();
    if (!packet || !frame) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    // Decode until a frame at or after the target that is not black; up to five seconds or 150 frames further the
    // best one seen so far is kept, so a video that is dark all along still gets its picture.
    int examined = 0, have = 0, finished = 0, draining = 0;
    while (!finished) {
        if (!draining) {
            code = fn_av_read_frame(format, packet);
            if (code < 0) {
                draining = 1;
                fn_avcodec_send_packet(decoder, NULL);
            } else {
                if (packet->stream_index == index) fn_avcodec_send_packet(decoder, packet);
                fn_av_packet_unref(packet);
            }
        }
        while (!finished) {
            code = fn_avcodec_receive_frame(decoder, frame);
            if (code == AVERROR(EAGAIN)) break;
            if (code < 0) {
                finished = 1;
                break;
            }
            double time = frame->best_effort_timestamp != AV_NOPTS_VALUE
                              ? frame->best_effort_timestamp * base - start : 0;
            if (time + 0.001 < target && !have) {
                // Before the target: kept only as a fallback for a clip that ends before it.
                pd_video_frame candidate = {0};
                if (to_rgb(frame, box, &candidate) == 0) {
                    free(out->rgb);
                    int rotation = out->rotation;
                    *out = candidate;
                    out->rotation = rotation;
                    out->duration = duration;
                    out->time = time;
                }
                continue;
            }
            pd_video_frame candidate = {0};
            if (to_rgb(frame, box, &candidate) != 0) continue;
            examined++;
            if (!have || is_shown(&candidate) || candidate.mean_luma > out->mean_luma + 8) {
                free(out->rgb);
                int rotation = out->rotation;
                *out = candidate;
                out->rotation = rotation;
                out->duration = duration;
                out->time = time;
                have = 1;
            } else {
                free(candidate.rgb);
            }
            if (is_shown(out) || examined >= 150 || time > target + 5) finished = 1;
        }
        if (draining && code == AVERROR_EOF) finished = 1;
    }
    if (!out->rgb) {
        snprintf(error, error_size, "no frame of the video could be decoded");
        goto done;
    }
    result = 0;

done:
    fn_av_frame_free(&frame);
    fn_av_packet_free(&packet);
    fn_avcodec_free_context(&decoder);
    if (format) fn_avformat_close_input(&format);
    if (io) {
        fn_av_freep(&io->buffer);
        fn_avio_context_free(&io);
    }
    if (result != 0) pd_ffmpeg_free_frame(out);
    return result;
}
