#ifndef PHOTODROP_CZLIB_SHIM_H
#define PHOTODROP_CZLIB_SHIM_H
// zlib's inflate: a PNG's compressed text chunks (an XMP packet in a compressed iTXt chunk).
#include <zlib.h>

// inflateInit is a macro over inflateInit_ that Swift does not import.
static inline int photodrop_inflate_init(z_stream *stream) { return inflateInit(stream); }
#endif
