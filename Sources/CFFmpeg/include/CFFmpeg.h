// FFmpeg for PhotoImaging's video pictures, loaded with dlopen by the render helper only (see ffmpeg.c). Its
// macro and variadic API (AVERROR, av_err2str, av_log callbacks) stays in C; Swift sees these functions.
#ifndef PHOTODROP_CFFMPEG_H
#define PHOTODROP_CFFMPEG_H

#include <stddef.h>
#include <stdint.h>

/// A decoded video frame as 8-bit RGB, rows of `stride` bytes (to free with pd_ffmpeg_free_frame).
typedef struct {
    unsigned char *rgb;
    int width;
    int height;
    int stride;
    /// How far to turn the frame clockwise to show it upright (0, 90, 180 or 270), from the stream's display matrix.
    int rotation;
    /// Where the frame is, and how long the video is, in seconds.
    double time;
    double duration;
    /// The frame's mean luma (0-255) and its standard deviation: a black or flat frame has little of either.
    double mean_luma;
    double luma_deviation;
    /// Whether the video is HDR (PQ or HLG) and the frame was tone-mapped to SDR (zscale and tonemap, Hable's curve).
    int tone_mapped;
} pd_video_frame;

/// Loads FFmpeg's libraries (Debian 12's sonames); 0, or -1 with the reason in `error`.
int pd_ffmpeg_start(char *error, size_t error_size);

/// The poster frame of the video read from `descriptor` (its own reads with pread; the descriptor stays the
/// caller's): about one second in, or 10 % of a clip shorter than ten seconds, and not a black frame (mean luma above
/// 16 and some contrast) when one follows within a few seconds. Frames larger than `max_pixels` are refused before
/// decoding, and the picture is scaled to fit in `box` × `box` (never enlarged). Only the demuxers and decoders of
/// the allow-lists in ffmpeg.c are used. 0, or -1 with the reason in `error`.
int pd_ffmpeg_poster(int descriptor, long long max_pixels, int box, pd_video_frame *frame, char *error,
                     size_t error_size);

void pd_ffmpeg_free_frame(pd_video_frame *frame);

/// A still image libvips has no loader safe for untrusted input for (a Windows BMP), decoded by FFmpeg's own
/// decoder as pd_ffmpeg_poster decodes a video's frame, with its own allow-lists (bmp_pipe, bmp).
int pd_ffmpeg_still(int descriptor, long long max_pixels, int box, pd_video_frame *frame, char *error,
                    size_t error_size);

/// A high-dynamic-range photo's pixels (interleaved 16-bit RGB, `width` × `height`, whose values follow the H.273
/// `transfer` (16: PQ, 18: HLG) and `primaries` codes) tone-mapped to 8-bit sRGB with the same zscale and tonemap
/// (Hable) steps as an HDR video's pictures, into `out` (its size unchanged). 0, or -1 with the reason in `error`.
int pd_ffmpeg_tonemap_rgb16(const uint16_t *pixels, int width, int height, int primaries, int transfer,
                            pd_video_frame *out, char *error, size_t error_size);

/// A playable preview: an H.264 (High profile) MP4, fragmented, with the source's AAC sound when it has some.
typedef struct {
    unsigned char *bytes;
    size_t length;
    int width;
    int height;
    /// The display rotation kept from the source (0, 90, 180, 270 clockwise), written into the preview's matrix.
    int rotation;
    double duration;
} pd_video_preview;

/// Transcodes the first `max_seconds` of the video read from `descriptor` into a preview a browser plays: H.264 at
/// most `short_side` pixels on its short side (720), x264's veryfast preset at CRF 23, in memory. The same
/// allow-lists and pixel limit as pd_ffmpeg_poster. 0, or -1 with the reason in `error`.
int pd_ffmpeg_preview(int descriptor, long long max_pixels, int short_side, double max_seconds,
                      pd_video_preview *preview, char *error, size_t error_size);

void pd_ffmpeg_free_preview(pd_video_preview *preview);

/// What FFmpeg logged (warnings and errors) since the last call, one message per line (to free with pd_ffmpeg_free_text).
char *pd_ffmpeg_take_log(void);
/// Frees a text returned by pd_ffmpeg_take_log.
void pd_ffmpeg_free_text(char *text);

#endif
