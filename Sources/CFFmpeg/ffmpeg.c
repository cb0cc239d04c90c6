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
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/display.h>
#include <libswscale/swscale.h>

#include "CFFmpeg.h"

/// Containers photodrop accepts as video (and what content detection can call them).
static const char *const demuxers = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,mpeg,mpegps,flv,ogg,asf,dv";
/// Video decoders for what phones, cameras and the web record.
static const char *const decoders =
    "h264,hevc,mpeg4,h263,h263p,vp8,vp9,av1,libdav1d,mjpeg,prores,mpeg1video,mpeg2video,theora,wmv1,wmv2,wmv3,vc1,"
    "dvvideo,flv,msmpeg4v1,msmpeg4v2,msmpeg4v3";
/// Still images libvips has no safe loader for: Windows bitmaps.
static const char *const still_demuxers = "bmp_pipe";
static const char *const still_decoders = "bmp";

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
    X(sws_freeContext)                                                                                                 \
    X(avcodec_find_encoder_by_name)                                                                                    \
    X(avformat_alloc_output_context2)                                                                                  \
    X(avformat_new_stream)                                                                                             \
    X(avcodec_parameters_from_context)                                                                                 \
    X(avcodec_parameters_copy)                                                                                         \
    X(avformat_write_header)                                                                                           \
    X(av_interleaved_write_frame)                                                                                      \
    X(av_write_trailer)                                                                                                \
    X(avio_open_dyn_buf)                                                                                               \
    X(avio_close_dyn_buf)                                                                                              \
    X(avformat_free_context)                                                                                           \
    X(av_packet_rescale_ts)                                                                                            \
    X(av_frame_get_buffer)                                                                                             \
    X(av_stream_new_side_data)                                                                                         \
    X(av_free)                                                                                                         \
    X(avcodec_receive_packet)                                                                                          \
    X(av_rescale_q)                                                                                                    \
    X(avcodec_send_frame)                                                                                              \
    X(av_frame_make_writable)                                                                                          \
    X(av_frame_ref)                                                                                                   \
    X(av_frame_unref)                                                                                                  \
    X(avfilter_graph_alloc)                                                                                            \
    X(avfilter_graph_free)                                                                                             \
    X(avfilter_get_by_name)                                                                                            \
    X(avfilter_graph_create_filter)                                                                                    \
    X(avfilter_graph_parse_ptr)                                                                                        \
    X(avfilter_graph_config)                                                                                           \
    X(avfilter_inout_alloc)                                                                                            \
    X(avfilter_inout_free)                                                                                             \
    X(av_buffersrc_add_frame_flags)                                                                                    \
    X(av_buffersink_get_frame)                                                                                         \
    X(av_strdup)

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
                               "libswscale.so.6", "libavfilter.so.8"};
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

// MARK: Opening a video

/// An opened video: its demuxer over the descriptor, the chosen video stream and an opened decoder for it.
typedef struct {
    pd_reader reader;
    AVIOContext *io;
    AVFormatContext *format;
    AVCodecContext *decoder;
    int index;
    AVStream *stream;
    /// The stream's display rotation, clockwise degrees (0, 90, 180, 270), as ffmpeg's autorotate reads it.
    int rotation;
    double duration;
    double start;
} pd_input;

static void describe(int code, const char *what, char *error, size_t error_size);

static void close_input(pd_input *input) {
    fn_avcodec_free_context(&input->decoder);
    if (input->format) fn_avformat_close_input(&input->format);
    if (input->io) {
        fn_av_freep(&input->io->buffer);
        fn_avio_context_free(&input->io);
    }
}

static int open_input(int descriptor, long long max_pixels, const char *demuxers, const char *decoders,
                      pd_input *input, char *error, size_t error_size) {
    memset(input, 0, sizeof *input);
    struct stat info;
    if (fstat(descriptor, &info) != 0) {
        snprintf(error, error_size, "fstat: %s", strerror(errno));
        return -1;
    }
    input->reader = (pd_reader){.descriptor = descriptor, .position = 0, .size = info.st_size};
    AVDictionary *options = NULL;
    unsigned char *buffer = fn_av_malloc(1 << 16);
    input->io = buffer ? fn_avio_alloc_context(buffer, 1 << 16, 0, &input->reader, pd_read, NULL, pd_seek) : NULL;
    input->format = fn_avformat_alloc_context();
    if (!input->io || !input->format) {
        if (!input->io) fn_av_freep(&buffer);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    input->format->pb = input->io;
    input->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    fn_av_dict_set(&options, "format_whitelist", demuxers, 0);
    fn_av_dict_set(&options, "codec_whitelist", decoders, 0);
    int code = fn_avformat_open_input(&input->format, NULL, NULL, &options);
    fn_av_dict_free(&options);
    if (code < 0) {
        describe(code, "not a video container photodrop reads", error, error_size);
        input->format = NULL;  // freed by avformat_open_input
        return -1;
    }
    if ((code = fn_avformat_find_stream_info(input->format, NULL)) < 0) {
        describe(code, "the video's streams cannot be read", error, error_size);
        return -1;
    }
    const AVCodec *codec = NULL;
    input->index = fn_av_find_best_stream(input->format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (input->index < 0 || !codec) {
        snprintf(error, error_size, "the file has no video stream photodrop can decode");
        return -1;
    }
    input->stream = input->format->streams[input->index];
    AVCodecParameters *parameters = input->stream->codecpar;
    long long pixels = (long long)parameters->width * parameters->height;
    if (pixels <= 0) {
        snprintf(error, error_size, "the video stream declares no picture size (%d × %d pixels per frame); its headers "
                 "are damaged", parameters->width, parameters->height);
        return -1;
    }
    if (pixels > max_pixels) {
        snprintf(error, error_size, "the video claims %d × %d pixels per frame, more than the %lld photodrop decodes",
                 parameters->width, parameters->height, max_pixels);
        return -1;
    }
    input->decoder = fn_avcodec_alloc_context3(codec);
    if (!input->decoder || fn_avcodec_parameters_to_context(input->decoder, parameters) < 0) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    input->decoder->thread_count = 1;
    fn_av_dict_set(&options, "codec_whitelist", decoders, 0);
    code = fn_avcodec_open2(input->decoder, codec, &options);
    fn_av_dict_free(&options);
    if (code < 0) {
        describe(code, "the video's codec cannot be decoded", error, error_size);
        return -1;
    }
    double base = av_q2d(input->stream->time_base);
    input->duration = input->stream->duration != AV_NOPTS_VALUE ? input->stream->duration * base
                      : input->format->duration != AV_NOPTS_VALUE ? (double)input->format->duration / AV_TIME_BASE
                                                                   : 0;
    input->start = input->stream->start_time != AV_NOPTS_VALUE ? input->stream->start_time * base : 0;
    uint8_t *matrix = fn_av_stream_get_side_data(input->stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        double theta = -fn_av_display_rotation_get((const int32_t *)matrix);
        theta -= 360 * floor(theta / 360 + 0.9 / 360);
        input->rotation = ((int)lround(theta / 90) % 4) * 90;
    }
    return 0;
}

/// The next decoded frame of the input's video stream, into `frame`: 0, AVERROR_EOF after the last one, or an
/// error. Packets of other streams are handed to `other` (when given) before they are dropped.
static int decode_next(pd_input *input, AVPacket *packet, AVFrame *frame, int *draining,
                       void (*other)(AVPacket *packet, void *context), void *context) {
    for (;;) {
        int code = fn_avcodec_receive_frame(input->decoder, frame);
        if (code != AVERROR(EAGAIN)) return code;
        if (*draining) return AVERROR_EOF;
        if (fn_av_read_frame(input->format, packet) < 0) {
            *draining = 1;
            fn_avcodec_send_packet(input->decoder, NULL);
            continue;
        }
        if (packet->stream_index == input->index) {
            fn_avcodec_send_packet(input->decoder, packet);
        } else if (other) {
            other(packet, context);
        }
        fn_av_packet_unref(packet);
    }
}

// MARK: HDR to SDR

/// libavfilter's zscale and tonemap, as ffmpeg's documentation shows them: to linear light (SDR white at 100 nits),
/// to BT.709 primaries, Hable's curve, then back to BT.709's transfer as 8-bit 4:2:0 for video (`%s` is an optional
/// `w=…:h=…:` that scales in the same step), or to sRGB's transfer as 8-bit RGB for a photo.
static const char *const video_tonemapping =
    "zscale=%st=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
    "zscale=t=bt709:m=bt709:r=tv,format=yuv420p";
static const char *const photo_tonemapping =
    "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
    "zscale=t=iec61966-2-1,format=gbrp";

/// Whether frames of this transfer are HDR (PQ, HLG): they are tone-mapped for the pictures.
static int is_hdr(enum AVColorTransferCharacteristic transfer) {
    return transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67;
}

/// A filter graph that tone-maps frames like the first one it was made for, one frame in, one frame out.
typedef struct {
    AVFilterGraph *graph;
    AVFilterContext *source;
    AVFilterContext *sink;
} pd_tonemapper;

static void tonemapper_close(pd_tonemapper *mapper) {
    fn_avfilter_graph_free(&mapper->graph);
    mapper->source = mapper->sink = NULL;
}

/// Makes the graph `description` for frames like `frame` (size, pixel format, colour properties). 0, or a negative
/// error.
static int tonemapper_open(pd_tonemapper *mapper, const AVFrame *frame, AVRational time_base,
                           const char *description) {
    memset(mapper, 0, sizeof *mapper);
    mapper->graph = fn_avfilter_graph_alloc();
    AVFilterInOut *inputs = fn_avfilter_inout_alloc(), *outputs = fn_avfilter_inout_alloc();
    int code = AVERROR(ENOMEM);
    if (!mapper->graph || !inputs || !outputs) goto done;
    char arguments[256];
    snprintf(arguments, sizeof arguments, "video_size=%dx%d:pix_fmt=%d:time_base=%d/%d:pixel_aspect=%d/%d",
             frame->width, frame->height, frame->format, time_base.num, time_base.den,
             frame->sample_aspect_ratio.num ? frame->sample_aspect_ratio.num : 1,
             frame->sample_aspect_ratio.den ? frame->sample_aspect_ratio.den : 1);
    if ((code = fn_avfilter_graph_create_filter(&mapper->source, fn_avfilter_get_by_name("buffer"), "in", arguments,
                                                NULL, mapper->graph)) < 0)
        goto done;
    if ((code = fn_avfilter_graph_create_filter(&mapper->sink, fn_avfilter_get_by_name("buffersink"), "out", NULL,
                                                NULL, mapper->graph)) < 0)
        goto done;
    outputs->name = fn_av_strdup("in");
    outputs->filter_ctx = mapper->source;
    inputs->name = fn_av_strdup("out");
    inputs->filter_ctx = mapper->sink;
    if ((code = fn_avfilter_graph_parse_ptr(mapper->graph, description, &inputs, &outputs, NULL)) < 0) goto done;
    code = fn_avfilter_graph_config(mapper->graph, NULL);
done:
    fn_avfilter_inout_free(&inputs);
    fn_avfilter_inout_free(&outputs);
    if (code < 0) tonemapper_close(mapper);
    return code;
}

/// `frame` tone-mapped into `out` (the caller unreferences it). 0, or a negative error.
static int tonemapper_run(pd_tonemapper *mapper, AVFrame *frame, AVFrame *out) {
    int code = fn_av_buffersrc_add_frame_flags(mapper->source, frame, AV_BUFFERSRC_FLAG_KEEP_REF);
    return code < 0 ? code : fn_av_buffersink_get_frame(mapper->sink, out);
}

/// `frame` of a video tone-mapped to 8-bit SDR into `out` (a new graph per frame: only a few frames of a video are
/// looked at for its poster). 0, or a negative error (then the caller shows the frame as decoded).
static int tonemap_frame(AVFrame *frame, AVRational time_base, AVFrame *out) {
    char description[512];
    snprintf(description, sizeof description, video_tonemapping, "");
    pd_tonemapper mapper;
    int code = tonemapper_open(&mapper, frame, time_base, description);
    if (code < 0) return code;
    code = tonemapper_run(&mapper, frame, out);
    tonemapper_close(&mapper);
    return code;
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

static int poster(int descriptor, long long max_pixels, const char *allowed_demuxers, const char *allowed_decoders,
                  int box, pd_video_frame *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    if (pd_ffmpeg_start(error, error_size) != 0) return -1;
    int result = -1, code = 0;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL, *fallback = NULL, *tonemapped = NULL;
    pd_input input;
    if (open_input(descriptor, max_pixels, allowed_demuxers, allowed_decoders, &input, error, error_size) != 0)
        goto done;
    AVFormatContext *format = input.format;
    AVCodecContext *decoder = input.decoder;
    int index = input.index;
    double base = av_q2d(input.stream->time_base);
    double duration = input.duration, start = input.start;
    double target = duration >= 10 ? 1.0 : duration * 0.1;
    out->duration = duration;
    out->rotation = input.rotation;
    if (target > 0) {
        int64_t timestamp = (int64_t)((start + target) / base);
        if (fn_av_seek_frame(format, index, timestamp, AVSEEK_FLAG_BACKWARD) >= 0) fn_avcodec_flush_buffers(decoder);
    }
    packet = fn_av_packet_alloc();
    frame = fn_av_frame_alloc();
    fallback = fn_av_frame_alloc();
    if (!packet || !frame || !fallback) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    // Decode until a frame at or after the target that is not black; up to five seconds or 150 frames further the
    // best one seen so far is kept, so a video that is dark all along still gets its picture.
    int examined = 0, have = 0, draining = 0;
    int hdr = is_hdr(input.decoder->color_trc) || is_hdr(input.stream->codecpar->color_trc);
    tonemapped = hdr ? fn_av_frame_alloc() : NULL;
    while ((code = decode_next(&input, packet, frame, &draining, NULL, NULL)) == 0) {
        double time = frame->best_effort_timestamp != AV_NOPTS_VALUE ? frame->best_effort_timestamp * base - start : 0;
        if (time + 0.001 < target) {
            // Before the target: only kept (by reference, not converted) for a clip that ends before it.
            fn_av_frame_unref(fallback);
            fn_av_frame_ref(fallback, frame);
            continue;
        }
        pd_video_frame candidate = {0};
        AVFrame *shown = frame;
        if (hdr && tonemapped && tonemap_frame(frame, input.stream->time_base, tonemapped) >= 0) shown = tonemapped;
        int converted = to_rgb(shown, box, &candidate);
        if (tonemapped) fn_av_frame_unref(tonemapped);
        if (converted != 0) continue;
        // From the target on: the first frame that is shown, else the brightest of the few seconds that follow.
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
        examined++;
        if (is_shown(out) || examined >= 150 || time > target + 5) break;
    }
    if (!have && fallback->data[0] && to_rgb(fallback, box, out) == 0) {
        out->rotation = input.rotation;
        out->duration = duration;
    }
    out->tone_mapped = hdr;
    if (!out->rgb) {
        snprintf(error, error_size, "no frame of the video could be decoded");
        goto done;
    }
    result = 0;

done:
    fn_av_frame_free(&frame);
    fn_av_frame_free(&fallback);
    fn_av_frame_free(&tonemapped);
    fn_av_packet_free(&packet);
    close_input(&input);
    if (result != 0) pd_ffmpeg_free_frame(out);
    return result;
}

int pd_ffmpeg_poster(int descriptor, long long max_pixels, int box, pd_video_frame *out, char *error,
                     size_t error_size) {
    return poster(descriptor, max_pixels, demuxers, decoders, box, out, error, error_size);
}

int pd_ffmpeg_still(int descriptor, long long max_pixels, int box, pd_video_frame *out, char *error,
                    size_t error_size) {
    return poster(descriptor, max_pixels, still_demuxers, still_decoders, box, out, error, error_size);
}

// MARK: HDR photos

int pd_ffmpeg_tonemap_rgb16(const uint16_t *pixels, int width, int height, int primaries, int transfer,
                            pd_video_frame *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    if (pd_ffmpeg_start(error, error_size) != 0) return -1;
    if (width <= 0 || height <= 0) {
        snprintf(error, error_size, "the photo has no pixels");
        return -1;
    }
    int result = -1, code;
    pd_tonemapper mapper = {0};
    AVFrame *frame = fn_av_frame_alloc(), *mapped = fn_av_frame_alloc();
    if (!frame || !mapped) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    // zscale reads planar RGB: the interleaved pixels are spread over the G, B and R planes.
    frame->format = AV_PIX_FMT_GBRP16;
    frame->width = width;
    frame->height = height;
    frame->color_primaries = (enum AVColorPrimaries)primaries;
    frame->color_trc = (enum AVColorTransferCharacteristic)transfer;
    frame->colorspace = AVCOL_SPC_RGB;
    frame->color_range = AVCOL_RANGE_JPEG;
    if ((code = fn_av_frame_get_buffer(frame, 0)) < 0) {
        describe(code, "out of memory", error, error_size);
        goto done;
    }
    for (int y = 0; y < height; y++) {
        const uint16_t *row = pixels + (size_t)y * (size_t)width * 3;
        uint16_t *g = (uint16_t *)(frame->data[0] + (size_t)y * frame->linesize[0]);
        uint16_t *b = (uint16_t *)(frame->data[1] + (size_t)y * frame->linesize[1]);
        uint16_t *r = (uint16_t *)(frame->data[2] + (size_t)y * frame->linesize[2]);
        for (int x = 0; x < width; x++) {
            r[x] = row[3 * x];
            g[x] = row[3 * x + 1];
            b[x] = row[3 * x + 2];
        }
    }
    if ((code = tonemapper_open(&mapper, frame, (AVRational){1, 1}, photo_tonemapping)) < 0 ||
        (code = tonemapper_run(&mapper, frame, mapped)) < 0) {
        describe(code, "tone mapping the HDR photo failed", error, error_size);
        goto done;
    }
    if (to_rgb(mapped, width > height ? width : height, out) != 0) {
        snprintf(error, error_size, "the tone-mapped photo cannot be converted to RGB");
        goto done;
    }
    out->tone_mapped = 1;
    result = 0;
done:
    tonemapper_close(&mapper);
    fn_av_frame_free(&frame);
    fn_av_frame_free(&mapped);
    if (result != 0) pd_ffmpeg_free_frame(out);
    return result;
}

// MARK: The playable preview

/// Where the source's AAC packets go: copied as they are into the preview, up to its length.
typedef struct {
    AVFormatContext *output;
    AVStream *audio;
    AVStream *source;
    int index;
    double start;
    double max_seconds;
} pd_audio_copy;

static void copy_audio(AVPacket *packet, void *context) {
    pd_audio_copy *sound = context;
    if (packet->stream_index != sound->index) return;
    double time = packet->pts != AV_NOPTS_VALUE ? packet->pts * av_q2d(sound->source->time_base) - sound->start : 0;
    if (time > sound->max_seconds) return;
    fn_av_packet_rescale_ts(packet, sound->source->time_base, sound->audio->time_base);
    packet->stream_index = sound->audio->index;
    packet->pos = -1;
    fn_av_interleaved_write_frame(sound->output, packet);
}

/// Encodes `frame` (NULL: flush) and writes what comes out.
static int encode_and_write(AVCodecContext *encoder, AVFrame *frame, AVFormatContext *output, AVStream *stream,
                            AVPacket *packet) {
    int code = fn_avcodec_send_frame(encoder, frame);
    if (code < 0) return code;
    while ((code = fn_avcodec_receive_packet(encoder, packet)) >= 0) {
        fn_av_packet_rescale_ts(packet, encoder->time_base, stream->time_base);
        packet->stream_index = stream->index;
        code = fn_av_interleaved_write_frame(output, packet);
        if (code < 0) return code;
    }
    return code == AVERROR(EAGAIN) || code == AVERROR_EOF ? 0 : code;
}

int pd_ffmpeg_preview(int descriptor, long long max_pixels, int short_side, double max_seconds,
                      pd_video_preview *preview, char *error, size_t error_size) {
    memset(preview, 0, sizeof *preview);
    if (pd_ffmpeg_start(error, error_size) != 0) return -1;
    int result = -1, code = 0;
    pd_input input;
    AVFormatContext *output = NULL;
    AVCodecContext *encoder = NULL;
    AVIOContext *sink = NULL;
    struct SwsContext *scaler = NULL;
    AVPacket *packet = NULL, *encoded = NULL;
    AVFrame *frame = NULL, *scaled = NULL, *mapped = NULL;
    pd_tonemapper mapper = {0};
    AVDictionary *options = NULL;
    if (open_input(descriptor, max_pixels, demuxers, decoders, &input, error, error_size) != 0) goto done;
    AVCodecContext *decoder = input.decoder;
    // HDR (PQ, HLG, Dolby Vision's HLG- or PQ-compatible base layer) becomes SDR BT.709: a browser shows 8-bit H.264.
    int hdr = is_hdr(decoder->color_trc) || is_hdr(input.stream->codecpar->color_trc);
    // At most `short_side` on the short side (720p), even sizes for 4:2:0.
    int width = decoder->width, height = decoder->height;
    double scale = fmin(1.0, (double)short_side / fmin(width, height));
    width = ((int)lround(width * scale) + 1) & ~1;
    height = ((int)lround(height * scale) + 1) & ~1;

    const AVCodec *h264 = fn_avcodec_find_encoder_by_name("libx264");
    if (!h264) {
        snprintf(error, error_size, "FFmpeg has no libx264 encoder");
        goto done;
    }
    encoder = fn_avcodec_alloc_context3(h264);
    if (fn_avformat_alloc_output_context2(&output, NULL, "mp4", NULL) < 0 || !encoder) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    encoder->width = width;
    encoder->height = height;
    encoder->pix_fmt = AV_PIX_FMT_YUV420P;
    encoder->time_base = input.stream->time_base;
    encoder->framerate = input.stream->avg_frame_rate;
    encoder->sample_aspect_ratio = decoder->sample_aspect_ratio;
    encoder->thread_count = 1;
    if (hdr) {
        encoder->color_primaries = AVCOL_PRI_BT709;
        encoder->color_trc = AVCOL_TRC_BT709;
        encoder->colorspace = AVCOL_SPC_BT709;
        encoder->color_range = AVCOL_RANGE_MPEG;
    }
    if (output->oformat->flags & AVFMT_GLOBALHEADER) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    fn_av_dict_set(&options, "preset", "veryfast", 0);
    fn_av_dict_set(&options, "crf", "23", 0);
    fn_av_dict_set(&options, "profile", "high", 0);
    code = fn_avcodec_open2(encoder, h264, &options);
    fn_av_dict_free(&options);
    if (code < 0) {
        describe(code, "the H.264 encoder cannot start", error, error_size);
        goto done;
    }
    AVStream *video = fn_avformat_new_stream(output, NULL);
    if (!video || fn_avcodec_parameters_from_context(video->codecpar, encoder) < 0) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    video->time_base = encoder->time_base;
    uint8_t *matrix = fn_av_stream_get_side_data(input.stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        uint8_t *copy = fn_av_stream_new_side_data(video, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
        if (copy) memcpy(copy, matrix, 9 * sizeof(int32_t));
    }
    // AAC sound is kept as it is; other sound is left out (a browser plays AAC in MP4).
    int audio_index = -1;
    AVStream *audio = NULL;
    for (unsigned index = 0; index < input.format->nb_streams; index++) {
        AVStream *stream = input.format->streams[index];
        if (stream->codecpar->codec_type == AVMEDIA_TYPE_AUDIO && stream->codecpar->codec_id == AV_CODEC_ID_AAC) {
            audio = fn_avformat_new_stream(output, NULL);
            if (audio && fn_avcodec_parameters_copy(audio->codecpar, stream->codecpar) >= 0) {
                audio->codecpar->codec_tag = 0;
                audio->time_base = stream->time_base;
                audio_index = (int)index;
            }
            break;
        }
    }
    if ((code = fn_avio_open_dyn_buf(&sink)) < 0) {
        describe(code, "out of memory", error, error_size);
        goto done;
    }
    output->pb = sink;
    // Fragmented: a browser starts playing before the whole file is there, and no seek back is needed to write it.
    fn_av_dict_set(&options, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0);
    code = fn_avformat_write_header(output, &options);
    fn_av_dict_free(&options);
    if (code < 0) {
        describe(code, "the MP4 cannot be written", error, error_size);
        goto done;
    }
    packet = fn_av_packet_alloc();
    encoded = fn_av_packet_alloc();
    frame = fn_av_frame_alloc();
    scaled = fn_av_frame_alloc();
    mapped = fn_av_frame_alloc();
    if (!packet || !encoded || !frame || !scaled || !mapped) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    scaled->format = AV_PIX_FMT_YUV420P;
    scaled->width = width;
    scaled->height = height;
    if (fn_av_frame_get_buffer(scaled, 0) < 0) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    double base = av_q2d(input.stream->time_base);
    int draining = 0, frames = 0;
    pd_audio_copy sound = {.output = output, .audio = audio, .index = audio_index,
                           .source = audio ? input.format->streams[audio_index] : NULL, .start = input.start,
                           .max_seconds = max_seconds};
    while ((code = decode_next(&input, packet, frame, &draining, audio ? copy_audio : NULL, &sound)) == 0) {
        double time = frame->best_effort_timestamp != AV_NOPTS_VALUE
                          ? frame->best_effort_timestamp * base - input.start : frames * 0.04;
        if (time > max_seconds) break;
        AVFrame *shown = frame;
        if (hdr) {
            // HDR frames are scaled and tone-mapped in one graph, made for the first frame.
            if (!mapper.graph) {
                char description[512], size[64];
                snprintf(size, sizeof size, "w=%d:h=%d:", width, height);
                snprintf(description, sizeof description, video_tonemapping, size);
                if ((code = tonemapper_open(&mapper, frame, input.stream->time_base, description)) < 0) {
                    describe(code, "the HDR video cannot be tone-mapped", error, error_size);
                    goto done;
                }
            }
            fn_av_frame_unref(mapped);
            if ((code = tonemapper_run(&mapper, frame, mapped)) < 0) {
                describe(code, "tone mapping a frame failed", error, error_size);
                goto done;
            }
            shown = mapped;
        }
        if (!scaler) {
            scaler = fn_sws_getContext(shown->width, shown->height, shown->format, width, height, AV_PIX_FMT_YUV420P,
                                       SWS_BICUBIC, NULL, NULL, NULL);
            if (!scaler) {
                snprintf(error, error_size, "the video's frames cannot be scaled");
                goto done;
            }
        }
        if (fn_av_frame_make_writable(scaled) < 0) {
            snprintf(error, error_size, "out of memory");
            goto done;
        }
        fn_sws_scale(scaler, (const uint8_t *const *)shown->data, shown->linesize, 0, shown->height, scaled->data,
                     scaled->linesize);
        scaled->pts = frame->best_effort_timestamp;
        if ((code = encode_and_write(encoder, scaled, output, video, encoded)) < 0) {
            describe(code, "encoding the preview failed", error, error_size);
            goto done;
        }
        frames++;
    }
    if (frames == 0) {
        snprintf(error, error_size, "no frame of the video could be decoded");
        goto done;
    }
    if ((code = encode_and_write(encoder, NULL, output, video, encoded)) < 0 ||
        (code = fn_av_write_trailer(output)) < 0) {
        describe(code, "finishing the preview failed", error, error_size);
        goto done;
    }
    uint8_t *bytes = NULL;
    int length = fn_avio_close_dyn_buf(sink, &bytes);
    sink = NULL;
    output->pb = NULL;
    preview->bytes = malloc((size_t)length);
    if (!preview->bytes) {
        fn_av_free(bytes);
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    memcpy(preview->bytes, bytes, (size_t)length);
    fn_av_free(bytes);
    preview->length = (size_t)length;
    preview->width = width;
    preview->height = height;
    preview->rotation = input.rotation;
    preview->duration = fmin(input.duration > 0 ? input.duration : max_seconds, max_seconds);
    result = 0;

done:
    if (sink) {
        uint8_t *bytes = NULL;
        fn_avio_close_dyn_buf(sink, &bytes);
        fn_av_free(bytes);
        if (output) output->pb = NULL;
    }
    if (output) fn_avformat_free_context(output);
    fn_avcodec_free_context(&encoder);
    fn_sws_freeContext(scaler);
    fn_av_frame_free(&frame);
    fn_av_frame_free(&scaled);
    fn_av_frame_free(&mapped);
    tonemapper_close(&mapper);
    fn_av_packet_free(&packet);
    fn_av_packet_free(&encoded);
    close_input(&input);
    return result;
}

void pd_ffmpeg_free_preview(pd_video_preview *preview) {
    free(preview->bytes);
    preview->bytes = NULL;
}

void pd_ffmpeg_free_text(char *text) { free(text); }
