#ifndef SPLASHD_LIBSYSTEMD_H
#define SPLASHD_LIBSYSTEMD_H
// The one handle on libsystemd.so.0 that bus.c and journal.c resolve their functions from
// (private to this target).
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

/// libsystemd.so.0, loaded with dlopen the first time it is asked for (thread-safe); NULL when it
/// cannot be loaded, with the reason in `table.error` and `table.loaded` set to -ELIBACC (the
/// `loaded` and `error[]` of a file's table of resolved functions).
void *splashd_libsystemd_handle(int *loaded, char *err, size_t err_length);
#define SPLASHD_LIBSYSTEMD_HANDLE(table) splashd_libsystemd_handle(&(table).loaded, (table).error, sizeof (table).error)

/// Resolves `symbol` into `table.field`; on failure writes the reason to `table.error`, sets
/// `table.loaded` to -ENOSYS and returns from the calling function.
#define SPLASHD_RESOLVE(handle, table, field, symbol)                                            \
    if (!((table).field = (__typeof__((table).field))dlsym((handle), #symbol))) {                \
        snprintf((table).error, sizeof (table).error, "libsystemd.so.0 has no %s", #symbol);   \
        (table).loaded = -ENOSYS;                                                                \
        return;                                                                                  \
    }

#endif
