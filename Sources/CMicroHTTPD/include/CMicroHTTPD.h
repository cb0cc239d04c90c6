// libmicrohttpd behind a small fixed-argument API, loaded with dlopen by `photodrop serve` only (see microhttpd.c):
// MHD_start_daemon is variadic and its option list is terminated by MHD_OPTION_END, which Swift cannot call; and no
// other photodrop command maps libmicrohttpd and GnuTLS.
#ifndef PHOTODROP_CMICROHTTPD_H
#define PHOTODROP_CMICROHTTPD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// Called for every request, first with `*upload_size` 0 and `*request_state` NULL (headers complete), then once per
/// piece of the body (`upload_data`, `*upload_size` bytes: set it to 0 when consumed), then once more with
/// `*upload_size` 0 after the body; a response queued ends the calls. Returns 1 to go on, 0 to close the connection.
typedef int (*pd_http_handler)(void *context, void *connection, const char *url, const char *method,
                               const char *upload_data, size_t *upload_size, void **request_state);
/// Called when a request is over (answered, or the connection closed): frees what `request_state` holds.
typedef void (*pd_http_completed)(void *context, void *request_state, int completed_normally);
/// Called when a connection is accepted (`started` 1) and just before its socket is closed (`started` 0), on the thread
/// that serves it.
typedef void (*pd_http_connection_event)(void *context, void *connection, int started);
/// Called with libmicrohttpd's own error messages.
typedef void (*pd_http_logger)(void *context, const char *message);
/// Fills up to `max` bytes of a streamed body at `position`: the count, -1 at the end, -2 on an error; 0 when there is
/// nothing to send yet, after suspending the connection (pd_http_suspend), which the reader's owner resumes later.
typedef ssize_t (*pd_http_reader)(void *context, uint64_t position, char *buffer, size_t max);
typedef void (*pd_http_reader_done)(void *context);

typedef struct {
    /// An IPv4 or IPv6 literal to listen on.
    const char *address;
    /// 0: any free port (see bound_port).
    unsigned short port;
    unsigned connection_limit;
    /// Threads serving connections, each with an epoll set of its own.
    unsigned threads;
    /// Seconds a connection may be idle before it is closed.
    unsigned timeout_seconds;
    /// Bytes each connection may use for its request line, headers and read buffer (past it, libmicrohttpd answers
    /// 431 or 414 itself).
    size_t connection_memory_limit;
    /// PEM text of the certificate chain and the key: HTTPS when both are given.
    const char *certificate_pem;
    const char *key_pem;
} pd_http_options;

/// Loads libmicrohttpd (Debian 12's libmicrohttpd12) and starts a server on a pool of epoll threads, with suspend and
/// resume allowed. The server, or NULL with the reason in `error`; `bound_port` gets the port it listens on.
void *pd_http_start(const pd_http_options *options, pd_http_handler handler, pd_http_completed completed,
                    pd_http_connection_event connection_event, pd_http_logger logger, void *context,
                    unsigned short *bound_port, char *error, size_t error_size);
/// Stops accepting, closes every connection and frees the server. No connection may be suspended then.
void pd_http_stop(void *server);

/// Takes the connection out of the event loop (from the request handler or a stream's reader only) until
/// pd_http_resume; libmicrohttpd then calls the handler (or the reader) again.
void pd_http_suspend(void *connection);
/// Puts a suspended connection back (any thread).
void pd_http_resume(void *connection);
/// The connection's socket (for shutdown and for noticing a client that left), or -1.
int pd_http_socket(void *connection);

/// What a request's headers and query hold, for the checks libmicrohttpd does not make.
typedef struct {
    unsigned headers;
    size_t header_bytes;
    unsigned hosts;
    unsigned content_lengths;
    unsigned transfer_encodings;
    unsigned control_characters;
    unsigned arguments;
    size_t argument_bytes;
} pd_http_census;
void pd_http_census_of(void *connection, pd_http_census *census);

/// A request header's value, or NULL.
const char *pd_http_header(void *connection, const char *name);
/// The value of the last header named `name` (a header a proxy appends comes after the client's own), or NULL.
const char *pd_http_last_header(void *connection, const char *name);
/// A query argument's value (decoded), or NULL; an argument without '=' has the value "".
const char *pd_http_argument(void *connection, const char *name);
/// The client's address as text.
int pd_http_client_address(void *connection, char *buffer, size_t size);

/// Answers with `length` bytes (copied), `status` and the header lines in `headers` ("Name: value" lines, each ending
/// in '\n'). 1, or 0 when the answer could not be queued. A HEAD request gets the headers only.
int pd_http_respond(void *connection, unsigned status, const void *body, size_t length, const char *headers);
/// Answers with `length` bytes of the file open at `descriptor` from `offset` (libmicrohttpd closes the descriptor,
/// also when this fails).
int pd_http_respond_file(void *connection, unsigned status, int descriptor, uint64_t offset, uint64_t length,
                         const char *headers);
/// A response made once and sent to many requests (a small picture): `length` bytes of `body` (copied) and the header
/// lines in `headers`. NULL when it cannot be made. libmicrohttpd counts its uses: freeing it while connections still
/// send it is safe.
void *pd_http_kept_response(const void *body, size_t length, const char *headers);
/// Answers with a kept response; 1, or 0 when it could not be queued.
int pd_http_respond_kept(void *connection, unsigned status, void *response);
void pd_http_kept_response_free(void *response);
/// Answers with a body of unknown length produced by `reader` (server-sent events), sent as it comes.
int pd_http_respond_stream(void *connection, unsigned status, pd_http_reader reader, void *context,
                           pd_http_reader_done done, const char *headers);

#endif
