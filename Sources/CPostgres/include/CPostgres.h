// libpq behind a small API of its own, loaded with dlopen only when a PostgreSQL catalog is configured (see
// postgres.c): a photodrop that keeps its catalog in SQLite never maps libpq, its GSSAPI and LDAP libraries, or
// OpenSSL's TLS half. Handles are opaque; what libpq's enums say is reduced to the few cases photodrop acts on.
#ifndef PHOTODROP_CPOSTGRES_H
#define PHOTODROP_CPOSTGRES_H

#include <stddef.h>

/// Loads libpq (Debian 12's libpq5) once; 0 when it is there, else -1 with the reason in `error`.
int pd_pq_load(char *error, size_t error_size);

/// Connects with libpq's keyword/value arrays (NULL-terminated; a `dbname` value that is a connection string or a
/// `postgresql://` URI is expanded in place, and later keywords override what it set). Never NULL once loaded: check
/// with pd_pq_connection_ok, and always pd_pq_finish.
void *pd_pq_connect(const char *const *keywords, const char *const *values);
int pd_pq_connection_ok(void *connection);
/// The connection's last error message (owned by libpq; valid until the next call on the connection).
const char *pd_pq_error_message(void *connection);
void pd_pq_finish(void *connection);
/// The server's version as a number (150018 for 15.18), 0 when not connected.
int pd_pq_server_version(void *connection);
/// The connection's socket, for waiting on notifications; -1 when there is none.
int pd_pq_socket(void *connection);
/// Whether libpq says the connection is still good (0: it broke, and a new one is needed).
int pd_pq_connection_alive(void *connection);
/// Whether a transaction is open on the connection: 0 idle, 1 a command running, 2 in a transaction, 3 in a failed
/// transaction (only ROLLBACK helps), 4 unknown (the connection broke).
int pd_pq_transaction_status(void *connection);

/// Runs `sql` with `count` text parameters ($1 …; a NULL value is SQL NULL). A result to pd_pq_clear, or NULL when
/// libpq could not even send it (out of memory, or the connection is gone: see pd_pq_error_message).
void *pd_pq_execute(void *connection, const char *sql, int count, const char *const *values);
/// Runs a script of several statements without parameters (libpq's simple protocol); the last statement's result.
void *pd_pq_execute_script(void *connection, const char *sql);
/// Prepares `sql` as the statement `name` on this connection.
void *pd_pq_prepare(void *connection, const char *name, const char *sql, int count);
/// Runs the prepared statement `name`.
void *pd_pq_execute_prepared(void *connection, const char *name, int count, const char *const *values);

/// Runs `sql`, a `COPY … FROM STDIN` in text format, sending `length` bytes of `data` as its rows. The COPY's result
/// (a command done, or the error that ended it) to pd_pq_clear, or NULL when the connection failed.
void *pd_pq_copy_in(void *connection, const char *sql, const char *data, size_t length);

/// 1: rows returned; 0: a command done; -1: an error (pd_pq_result_error, pd_pq_result_field).
int pd_pq_result_kind(void *result);
const char *pd_pq_result_error(void *result);
/// An error's field: 'C' the SQLSTATE, 'M' the primary message, 'D' the detail, 'n' the constraint's name (libpq's
/// PG_DIAG_* codes); NULL when absent.
const char *pd_pq_result_field(void *result, int code);
int pd_pq_rows(void *result);
int pd_pq_columns(void *result);
const char *pd_pq_column_name(void *result, int column);
/// The column's type, as PostgreSQL's type OID (20 bigint, 701 double precision, 25 text, 17 bytea, 16 boolean …).
unsigned pd_pq_column_type(void *result, int column);
/// The value as text (NULL for SQL NULL), and its length in bytes.
const char *pd_pq_value(void *result, int row, int column, int *length);
/// The rows a command changed ("" when it says none).
const char *pd_pq_affected_rows(void *result);
void pd_pq_clear(void *result);

/// Reads what the server sent (notifications) without blocking; 0 when the connection broke.
int pd_pq_consume_input(void *connection);
/// The next notification received, or NULL. Its parts stay valid until pd_pq_free_notification.
void *pd_pq_next_notification(void *connection);
const char *pd_pq_notification_channel(void *notification);
const char *pd_pq_notification_payload(void *notification);
int pd_pq_notification_sender(void *notification);
void pd_pq_free_notification(void *notification);

#endif
