// libmicrohttpd for `photodrop serve`, loaded with dlopen when the server starts. Each libmicrohttpd function is
// reached through a pointer of its own declared type (__typeof__), so the compiler checks every call against
// Debian's header (libmicrohttpd 0.9.75). The server runs a small pool of threads, each with its own epoll set: a
// connection costs a socket and its buffer, not a thread. Nothing here may block: a request whose answer takes time
// is suspended (MHD_suspend_connection) while a worker of photodrop's makes it, and resumed when it is ready; so is an
// event stream with nothing to send.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "CMicroHTTPD.h"

#define PD_MHD_FUNCTIONS \
    X(MHD_start_daemon) \
    X(MHD_stop_daemon) \
    X(MHD_get_daemon_info) \
    X(MHD_lookup_connection_value) \
    X(MHD_get_connection_info) \
    X(MHD_create_response_from_buffer) \
    X(MHD_create_response_from_fd_at_offset64) \
    X(MHD_create_response_from_callback) \
    X(MHD_add_response_header) \
    X(MHD_queue_response) \
    X(MHD_destroy_response) \
    X(MHD_suspend_connection) \
    X(MHD_resume_connection) \
    X(MHD_get_connection_values)

#define X(name) static __typeof__(name) *fn_##name;
PD_MHD_FUNCTIONS
#undef X

static char load_failure[512];

static void pd_mhd_load_once(void) {
    void *library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_failure, sizeof load_failure,
                 "cannot load libmicrohttpd.so.12 (%s); install Debian's libmicrohttpd12", dlerror());
        return;
    }
#define X(name)                                                                                                        \
    if (!load_failure[0] && !(fn_##name = (__typeof__(name) *)dlsym(library, #name)))                                 \
        snprintf(load_failure, sizeof load_failure, "libmicrohttpd.so.12 has no %s", #name);
    PD_MHD_FUNCTIONS
#undef X
}

/// Loads libmicrohttpd once (any thread may be first); 0, or -1 with the reason in `error`.
static int pd_mhd_load(char *error, size_t error_size) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, pd_mhd_load_once);
    if (load_failure[0] && error) snprintf(error, error_size, "%s", load_failure);
    return load_failure[0] ? -1 : 0;
}

/// What the trampolines below hand to Swift.
typedef struct {
    pd_http_handler handler;
    pd_http_completed completed;
    pd_http_connection_event connection_event;
    pd_http_logger logger;
    void *context;
    struct MHD_Daemon *daemon;
} pd_server;

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **request_state) {
    (void)version;
    pd_server *server = cls;
    return server->handler(server->context, connection, url, method, upload_data, upload_data_size, request_state)
               ? MHD_YES
               : MHD_NO;
}

static void request_completed(void *cls, struct MHD_Connection *connection, void **request_state,
                              enum MHD_RequestTerminationCode code) {
    (void)connection;
    pd_server *server = cls;
    if (*request_state) server->completed(server->context, *request_state, code == MHD_REQUEST_TERMINATED_COMPLETED_OK);
    *request_state = NULL;
}

static void connection_notified(void *cls, struct MHD_Connection *connection, void **socket_context,
                                enum MHD_ConnectionNotificationCode code) {
    (void)socket_context;
    pd_server *server = cls;
    server->connection_event(server->context, connection, code == MHD_CONNECTION_NOTIFY_STARTED);
}

static void log_message(void *cls, const char *format, va_list arguments) {
    pd_server *server = cls;
    char message[1024];
    vsnprintf(message, sizeof message, format, arguments);
    size_t length = strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r')) message[--length] = 0;
    server->logger(server->context, message);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Percent-decoding of the path and the query arguments, in place, except for %00 and %2F, which stay as they are
/// written: a NUL would cut the C string the handler sees (".../ID%00/anything" read as ".../ID"), and an encoded
/// slash must not become a path separator. Such a path then names no resource (404).
static size_t unescape(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    char *out = text;
    for (const char *in = text; *in; in++) {
        int high, low;
        if (in[0] == '%' && (high = hex_value(in[1])) >= 0 && (low = hex_value(in[2])) >= 0) {
            int value = high * 16 + low;
            if (value != 0 && value != '/') {
                *out++ = (char)value;
                in += 2;
                continue;
            }
        }
        *out++ = *in;
    }
    *out = 0;
    return (size_t)(out - text);
}

void *pd_http_start(const pd_http_options *options, pd_http_handler handler, pd_http_completed completed,
                    pd_http_connection_event connection_event, pd_http_logger logger, void *context,
                    unsigned short *bound_port, char *error, size_t error_size) {
    if (pd_mhd_load(error, error_size) != 0) return NULL;
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
    if (inet_pton(AF_INET, options->address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(options->port);
    } else if (inet_pton(AF_INET6, options->address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(options->port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, error_size, "'%s' is not an IPv4 or IPv6 address", options->address);
        return NULL;
    }
    int tls = options->certificate_pem && options->key_pem;
    if (tls) flags |= MHD_USE_TLS;
    pd_server *server = calloc(1, sizeof *server);
    if (!server) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    *server = (pd_server){.handler = handler,
                          .completed = completed,
                          .connection_event = connection_event,
                          .logger = logger,
                          .context = context};
    struct MHD_OptionItem items[] = {
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)log_message, server},
        {MHD_OPTION_SOCK_ADDR, 0, &address},
        {MHD_OPTION_THREAD_POOL_SIZE, options->threads, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, options->connection_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, options->timeout_seconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)options->connection_memory_limit, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)request_completed, server},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection_notified, server},
        {MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescape, NULL},
        // No MHD_OPTION_LISTENING_ADDRESS_REUSE: its "true" sets SO_REUSEPORT, and a second `photodrop serve`
        // (another library, another token) on the same port would start and get half of the connections at random;
        // its "false" also drops SO_REUSEADDR, and a restart would fail while old connections sit in TIME_WAIT. The
        // default (SO_REUSEADDR only) is what a server wants: the port is one server's, and free again at once.
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)options->certificate_pem},
        {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)options->key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    server->daemon = fn_MHD_start_daemon(flags, options->port, NULL, NULL, access_handler, server,
                                         MHD_OPTION_ARRAY, items, MHD_OPTION_END);
    if (!server->daemon) {
        snprintf(error, error_size,
                 "cannot listen on %s port %u: another program (or another photodrop serve) holds it, or it is not an "
                 "address of this machine; stop that program or choose another port in serve.listen",
                 options->address, options->port);
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info = fn_MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info ? info->port : options->port;
    return server;
}

void pd_http_stop(void *opaque) {
    pd_server *server = opaque;
    if (!server) return;
    fn_MHD_stop_daemon(server->daemon);
    free(server);
}

const char *pd_http_header(void *connection, const char *name) {
    return fn_MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

const char *pd_http_argument(void *connection, const char *name) {
    return fn_MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
}

void pd_http_suspend(void *connection) { fn_MHD_suspend_connection(connection); }

void pd_http_resume(void *connection) { fn_MHD_resume_connection(connection); }

int pd_http_socket(void *connection) {
    const union MHD_ConnectionInfo *info = fn_MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

static int ascii_equal(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a, y = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;
        if (x != y) return 0;
    }
    return *a == *b;
}

static int has_control(const char *text) {
    for (const unsigned char *at = (const unsigned char *)text; at && *at; at++) {
        if ((*at < 0x20 && *at != '\t') || *at == 0x7F) return 1;
    }
    return 0;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    pd_http_census *census = cls;
    size_t key_length = key ? strlen(key) : 0, value_length = value ? strlen(value) : 0;
    if (kind == MHD_HEADER_KIND) {
        census->headers++;
        census->header_bytes += key_length + value_length + 4;
        if (has_control(value)) census->control_characters++;
        if (!key) return MHD_YES;
        if (ascii_equal(key, "Host")) census->hosts++;
        if (ascii_equal(key, "Transfer-Encoding")) census->transfer_encodings++;
        if (ascii_equal(key, "Content-Length")) census->content_lengths++;
    } else if (kind == MHD_GET_ARGUMENT_KIND) {
        census->arguments++;
        census->argument_bytes += key_length + value_length + 2;
    }
    return MHD_YES;
}

typedef struct {
    const char *name;
    const char *found;
} pd_last_header;

static enum MHD_Result find_last(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    pd_last_header *search = cls;
    if (key && ascii_equal(key, search->name)) search->found = value;
    return MHD_YES;
}

const char *pd_http_last_header(void *connection, const char *name) {
    pd_last_header search = {.name = name, .found = NULL};
    fn_MHD_get_connection_values(connection, MHD_HEADER_KIND, find_last, &search);
    return search.found;
}

void pd_http_census_of(void *connection, pd_http_census *census) {
    memset(census, 0, sizeof *census);
    fn_MHD_get_connection_values(connection, MHD_HEADER_KIND, count_header, census);
    fn_MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, count_header, census);
}

int pd_http_client_address(void *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = fn_MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *bytes = address->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)address)->sin6_addr
                                                       : (const void *)&((const struct sockaddr_in *)address)->sin_addr;
    return inet_ntop(address->sa_family, bytes, buffer, (socklen_t)size) ? 0 : -1;
}

/// Adds "Name: value\n" lines to `response`; 0 when one is refused.
static int add_headers(struct MHD_Response *response, const char *headers) {
    if (!headers) return 1;
    char line[2048];
    const char *at = headers;
    while (*at) {
        const char *end = strchr(at, '\n');
        size_t length = end ? (size_t)(end - at) : strlen(at);
        if (length >= sizeof line) return 0;
        memcpy(line, at, length);
        line[length] = 0;
        char *colon = strchr(line, ':');
        if (colon) {
            *colon = 0;
            const char *value = colon + 1;
            while (*value == ' ') value++;
            if (fn_MHD_add_response_header(response, line, value) != MHD_YES) return 0;
        }
        at += length + (end ? 1 : 0);
    }
    return 1;
}

static int queue(void *connection, unsigned status, struct MHD_Response *response, const char *headers) {
    if (!response) return 0;
    int queued = add_headers(response, headers) && fn_MHD_queue_response(connection, status, response) == MHD_YES;
    fn_MHD_destroy_response(response);
    return queued;
}

int pd_http_respond(void *connection, unsigned status, const void *body, size_t length, const char *headers) {
    struct MHD_Response *response =
        fn_MHD_create_response_from_buffer(length, (void *)(length ? body : ""), MHD_RESPMEM_MUST_COPY);
    return queue(connection, status, response, headers);
}

int pd_http_respond_file(void *connection, unsigned status, int descriptor, uint64_t offset, uint64_t length,
                         const char *headers) {
    struct MHD_Response *response = fn_MHD_create_response_from_fd_at_offset64(length, descriptor, offset);
    if (!response) {
        close(descriptor);
        return 0;
    }
    return queue(connection, status, response, headers);
}

void *pd_http_kept_response(const void *body, size_t length, const char *headers) {
    if (pd_mhd_load(NULL, 0) != 0) return NULL;
    struct MHD_Response *response =
        fn_MHD_create_response_from_buffer(length, (void *)(length ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (!response) return NULL;
    if (!add_headers(response, headers)) {
        fn_MHD_destroy_response(response);
        return NULL;
    }
    return response;
}

int pd_http_respond_kept(void *connection, unsigned status, void *response) {
    return fn_MHD_queue_response(connection, status, response) == MHD_YES;
}

void pd_http_kept_response_free(void *response) {
    if (response) fn_MHD_destroy_response(response);
}

typedef struct {
    pd_http_reader reader;
    pd_http_reader_done done;
    void *context;
} pd_stream;

// A reader that returns 0 has suspended the connection (pd_http_suspend) and resumes it when it has more to send.

static ssize_t stream_read(void *cls, uint64_t position, char *buffer, size_t max) {
    pd_stream *stream = cls;
    ssize_t count = stream->reader(stream->context, position, buffer, max);
    return count == -1 ? MHD_CONTENT_READER_END_OF_STREAM : count < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : count;
}

static void stream_free(void *cls) {
    pd_stream *stream = cls;
    stream->done(stream->context);
    free(stream);
}

int pd_http_respond_stream(void *connection, unsigned status, pd_http_reader reader, void *context,
                           pd_http_reader_done done, const char *headers) {
    pd_stream *stream = malloc(sizeof *stream);
    if (!stream) {
        done(context);
        return 0;
    }
    *stream = (pd_stream){.reader = reader, .done = done, .context = context};
    struct MHD_Response *response =
        fn_MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, stream, stream_free);
    if (!response) {
        stream_free(stream);
        return 0;
    }
    return queue(connection, status, response, headers);
}
