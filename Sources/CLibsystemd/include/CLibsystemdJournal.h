#ifndef SPLASHD_CLIBSYSTEMDJOURNAL_H
#define SPLASHD_CLIBSYSTEMDJOURNAL_H
// libsystemd's journal reader (sd-journal), for `splashctl logs` (the SplashJournalReader target).
//
// libsystemd is loaded with dlopen at the first call, so the one executable that is both the
// daemon and splashctl (docs/packaging.md) does not load it at start: the daemon speaks the
// journal's native protocol and sd_notify itself, and libsystemd cost 1.3 ms of every start and
// 1.2 MB of resident memory (docs/benchmarks.md). Each function is sd-journal's of the same name
// without the `splashd_` prefix; the ones that return int return -ELIBACC when libsystemd could
// not be loaded (`splashd_journal_load_error` says why).
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-journal.h>

/// Why libsystemd could not be loaded (empty until a call failed so).
const char *splashd_journal_load_error(void);

int splashd_journal_open(sd_journal **ret, int flags);
int splashd_journal_open_directory(sd_journal **ret, const char *path, int flags);
void splashd_journal_close(sd_journal *j);
int splashd_journal_seek_head(sd_journal *j);
int splashd_journal_seek_tail(sd_journal *j);
int splashd_journal_next(sd_journal *j);
int splashd_journal_previous(sd_journal *j);
int splashd_journal_get_realtime_usec(sd_journal *j, uint64_t *ret);
int splashd_journal_get_data(sd_journal *j, const char *field, const void **data, size_t *length);
int splashd_journal_add_match(sd_journal *j, const void *data, size_t size);
void splashd_journal_flush_matches(sd_journal *j);
int splashd_journal_get_fd(sd_journal *j);
int splashd_journal_get_events(sd_journal *j);
int splashd_journal_get_timeout(sd_journal *j, uint64_t *timeout_usec);
int splashd_journal_process(sd_journal *j);
int splashd_journal_query_unique(sd_journal *j, const char *field);
int splashd_journal_enumerate_unique(sd_journal *j, const void **data, size_t *length);

#endif
