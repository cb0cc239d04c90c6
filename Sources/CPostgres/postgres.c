// libpq, loaded with dlopen by the process that is configured for a PostgreSQL catalog (see CPostgres.h).
#include "CPostgres.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <postgresql/libpq-fe.h>

static struct {
    typeof(PQconnectdbParams) *connectdbParams;
    typeof(PQstatus) *status;
    typeof(PQerrorMessage) *errorMessage;
    typeof(PQfinish) *finish;
    typeof(PQserverVersion) *serverVersion;
    typeof(PQsocket) *socket;
    typeof(PQexecParams) *execParams;
    typeof(PQexec) *exec;
    typeof(PQprepare) *prepare;
    typeof(PQexecPrepared) *execPrepared;
    typeof(PQresultStatus) *resultStatus;
    typeof(PQresultErrorMessage) *resultErrorMessage;
    typeof(PQresultErrorField) *resultErrorField;
    typeof(PQntuples) *ntuples;
    typeof(PQnfields) *nfields;
    typeof(PQfname) *fname;
    typeof(PQftype) *ftype;
    typeof(PQtransactionStatus) *transactionStatus;
    typeof(PQgetvalue) *getvalue;
    typeof(PQgetlength) *getlength;
    typeof(PQgetisnull) *getisnull;
    typeof(PQcmdTuples) *cmdTuples;
    typeof(PQclear) *clear;
    typeof(PQconsumeInput) *consumeInput;
    typeof(PQnotifies) *notifies;
    typeof(PQfreemem) *freemem;
    typeof(PQsetNoticeProcessor) *setNoticeProcessor;
    typeof(PQputCopyData) *putCopyData;
    typeof(PQputCopyEnd) *putCopyEnd;
    typeof(PQgetResult) *getResult;
} pq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int loaded;

#define RESOLVE(field, symbol)                                                                                        \
    if (!(pq.field = (typeof(pq.field))dlsym(library, #symbol))) {                                                   \
        snprintf(load_error, sizeof load_error, "libpq.so.5 lacks %s: %s", #symbol, dlerror());                       \
        return;                                                                                                       \
    }

static void load_library(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error,
                 "cannot load libpq.so.5, the PostgreSQL client library (Debian: apt-get install libpq5): %s",
                 dlerror());
        return;
    }
    RESOLVE(connectdbParams, PQconnectdbParams)
    RESOLVE(status, PQstatus)
    RESOLVE(errorMessage, PQerrorMessage)
    RESOLVE(finish, PQfinish)
    RESOLVE(serverVersion, PQserverVersion)
    RESOLVE(socket, PQsocket)
    RESOLVE(execParams, PQexecParams)
    RESOLVE(exec, PQexec)
    RESOLVE(prepare, PQprepare)
    RESOLVE(execPrepared, PQexecPrepared)
    RESOLVE(resultStatus, PQresultStatus)
    RESOLVE(resultErrorMessage, PQresultErrorMessage)
    RESOLVE(resultErrorField, PQresultErrorField)
    RESOLVE(ntuples, PQntuples)
    RESOLVE(nfields, PQnfields)
    RESOLVE(fname, PQfname)
    RESOLVE(ftype, PQftype)
    RESOLVE(transactionStatus, PQtransactionStatus)
    RESOLVE(getvalue, PQgetvalue)
    RESOLVE(getlength, PQgetlength)
    RESOLVE(getisnull, PQgetisnull)
    RESOLVE(cmdTuples, PQcmdTuples)
    RESOLVE(clear, PQclear)
    RESOLVE(consumeInput, PQconsumeInput)
    RESOLVE(notifies, PQnotifies)
    RESOLVE(freemem, PQfreemem)
    RESOLVE(setNoticeProcessor, PQsetNoticeProcessor)
    RESOLVE(putCopyData, PQputCopyData)
    RESOLVE(putCopyEnd, PQputCopyEnd)
    RESOLVE(getResult, PQgetResult)
    loaded = 1;
}

int pd_pq_load(char *error, size_t error_size) {
    pthread_once(&load_once, load_library);
    if (loaded) return 0;
    if (error && error_size) snprintf(error, error_size, "%s", load_error);
    return -1;
}

// The server's NOTICEs ("relation already exists, skipping") are not errors; libpq would print them to stderr.
static void ignore_notice(void *argument, const char *message) {
    (void)argument;
    (void)message;
}

void *pd_pq_connect(const char *const *keywords, const char *const *values) {
    PGconn *connection = pq.connectdbParams(keywords, values, 1);
    if (connection && pq.status(connection) == CONNECTION_OK) pq.setNoticeProcessor(connection, ignore_notice, NULL);
    return connection;
}

int pd_pq_connection_ok(void *connection) { return connection && pq.status(connection) == CONNECTION_OK; }
const char *pd_pq_error_message(void *connection) {
    return connection ? pq.errorMessage(connection) : "out of memory";
}
void pd_pq_finish(void *connection) {
    if (connection) pq.finish(connection);
}
int pd_pq_server_version(void *connection) { return pq.serverVersion(connection); }
int pd_pq_socket(void *connection) { return pq.socket(connection); }
int pd_pq_connection_alive(void *connection) { return pq.status(connection) == CONNECTION_OK; }
int pd_pq_transaction_status(void *connection) { return (int)pq.transactionStatus(connection); }

void *pd_pq_execute(void *connection, const char *sql, int count, const char *const *values) {
    return pq.execParams(connection, sql, count, NULL, values, NULL, NULL, 0);
}
void *pd_pq_execute_script(void *connection, const char *sql) { return pq.exec(connection, sql); }
void *pd_pq_prepare(void *connection, const char *name, const char *sql, int count) {
    return pq.prepare(connection, name, sql, count, NULL);
}
void *pd_pq_execute_prepared(void *connection, const char *name, int count, const char *const *values) {
    return pq.execPrepared(connection, name, count, values, NULL, NULL, 0);
}

void *pd_pq_copy_in(void *connection, const char *sql, const char *data, size_t length) {
    PGresult *started = pq.exec(connection, sql);
    if (!started || pq.resultStatus(started) != PGRES_COPY_IN) return started;
    pq.clear(started);
    // The connection blocks (libpq's default), so a chunk is either sent or the connection failed.
    const char *failure = NULL;
    size_t offset = 0;
    while (offset < length) {
        size_t chunk = length - offset < ((size_t)1 << 20) ? length - offset : ((size_t)1 << 20);
        if (pq.putCopyData(connection, data + offset, (int)chunk) != 1) {
            failure = "photodrop could not send the rows";
            break;
        }
        offset += chunk;
    }
    pq.putCopyEnd(connection, failure);
    // The COPY's own result, then NULL; an error result is kept over a later one.
    PGresult *result = NULL;
    PGresult *next;
    while ((next = pq.getResult(connection))) {
        if (!result || (pq.resultStatus(result) == PGRES_COMMAND_OK && pq.resultStatus(next) != PGRES_COMMAND_OK)) {
            if (result) pq.clear(result);
            result = next;
        } else {
            pq.clear(next);
        }
    }
    return result;
}

int pd_pq_result_kind(void *result) {
    switch (pq.resultStatus(result)) {
    case PGRES_TUPLES_OK:
    case PGRES_SINGLE_TUPLE:
        return 1;
    case PGRES_COMMAND_OK:
    case PGRES_EMPTY_QUERY:
        return 0;
    default:
        return -1;
    }
}
const char *pd_pq_result_error(void *result) { return pq.resultErrorMessage(result); }
const char *pd_pq_result_field(void *result, int code) { return pq.resultErrorField(result, code); }
int pd_pq_rows(void *result) { return pq.ntuples(result); }
int pd_pq_columns(void *result) { return pq.nfields(result); }
const char *pd_pq_column_name(void *result, int column) { return pq.fname(result, column); }
unsigned pd_pq_column_type(void *result, int column) { return pq.ftype(result, column); }
const char *pd_pq_value(void *result, int row, int column, int *length) {
    if (pq.getisnull(result, row, column)) {
        if (length) *length = 0;
        return NULL;
    }
    if (length) *length = pq.getlength(result, row, column);
    return pq.getvalue(result, row, column);
}
const char *pd_pq_affected_rows(void *result) { return pq.cmdTuples(result); }
void pd_pq_clear(void *result) {
    if (result) pq.clear(result);
}

int pd_pq_consume_input(void *connection) { return pq.consumeInput(connection); }
void *pd_pq_next_notification(void *connection) { return pq.notifies(connection); }
const char *pd_pq_notification_channel(void *notification) { return ((PGnotify *)notification)->relname; }
const char *pd_pq_notification_payload(void *notification) { return ((PGnotify *)notification)->extra; }
int pd_pq_notification_sender(void *notification) { return ((PGnotify *)notification)->be_pid; }
void pd_pq_free_notification(void *notification) {
    if (notification) pq.freemem(notification);
}
