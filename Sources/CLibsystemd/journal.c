#define _GNU_SOURCE
#include <pthread.h>
#include "CLibsystemdJournal.h"
#include "libsystemd.h"

// Every sd-journal function used: X(name, return type, parameters, arguments).
#define JOURNAL_FUNCTIONS(X)                                                                     \
    X(open, int, (sd_journal **ret, int flags), (ret, flags))                                     \
    X(open_directory, int, (sd_journal **ret, const char *path, int flags), (ret, path, flags))  \
    X(seek_head, int, (sd_journal *j), (j))                                                       \
    X(seek_tail, int, (sd_journal *j), (j))                                                       \
    X(next, int, (sd_journal *j), (j))                                                            \
    X(previous, int, (sd_journal *j), (j))                                                        \
    X(get_realtime_usec, int, (sd_journal *j, uint64_t *ret), (j, ret))                           \
    X(get_data, int, (sd_journal *j, const char *field, const void **data, size_t *length),      \
      (j, field, data, length))                                                                   \
    X(add_match, int, (sd_journal *j, const void *data, size_t size), (j, data, size))            \
    X(get_fd, int, (sd_journal *j), (j))                                                          \
    X(get_events, int, (sd_journal *j), (j))                                                      \
    X(get_timeout, int, (sd_journal *j, uint64_t *timeout_usec), (j, timeout_usec))               \
    X(process, int, (sd_journal *j), (j))                                                         \
    X(query_unique, int, (sd_journal *j, const char *field), (j, field))                          \
    X(enumerate_unique, int, (sd_journal *j, const void **data, size_t *length), (j, data, length))

static struct {
    int loaded; // 1 loaded, <0 failed (-errno)
    char error[200];
#define FIELD(name, type, parameters, arguments) __typeof__(sd_journal_##name) *name;
    JOURNAL_FUNCTIONS(FIELD)
#undef FIELD
    __typeof__(sd_journal_close) *close;
    __typeof__(sd_journal_flush_matches) *flush_matches;
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = SPLASHD_LIBSYSTEMD_HANDLE(lib);
    if (!handle) return;
#define RESOLVE(name, type, parameters, arguments) SPLASHD_RESOLVE(handle, lib, name, sd_journal_##name)
    JOURNAL_FUNCTIONS(RESOLVE)
#undef RESOLVE
    SPLASHD_RESOLVE(handle, lib, close, sd_journal_close)
    SPLASHD_RESOLVE(handle, lib, flush_matches, sd_journal_flush_matches)
    lib.loaded = 1;
}

static int loaded(void) {
    pthread_once(&load_once, load);
    return lib.loaded > 0;
}

const char *splashd_journal_load_error(void) { return lib.loaded < 0 ? lib.error : ""; }

#define WRAPPER(name, type, parameters, arguments)                                               \
    type splashd_journal_##name parameters {                                                     \
        if (!loaded()) return -ELIBACC;                                                          \
        return lib.name arguments;                                                               \
    }
JOURNAL_FUNCTIONS(WRAPPER)
#undef WRAPPER

// Only called on a journal a successful open returned, so the library is loaded.
void splashd_journal_close(sd_journal *j) {
    if (loaded()) lib.close(j);
}

void splashd_journal_flush_matches(sd_journal *j) {
    if (loaded()) lib.flush_matches(j);
}
