#ifndef PHOTODROP_CSQLITE_SHIM_H
#define PHOTODROP_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast of -1 that Swift cannot import.
static inline sqlite3_destructor_type photodrop_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_db_config is variadic; Swift cannot call it directly.
static inline int photodrop_sqlite_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// Turns off SQLite's memory statistics (process-wide; only before the library is initialised, else SQLITE_MISUSE).
/// With them on, every sqlite3_malloc and sqlite3_free takes a global mutex to count bytes nobody reads.
/// sqlite3_config is variadic; Swift cannot call it directly.
static inline int photodrop_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
