#ifndef SPLASHD_CSYSTEMD_H
#define SPLASHD_CSYSTEMD_H
// libsystemd's journal reader, for `splashctl logs` only (the SplashJournal target). The daemon
// must not link libsystemd: it speaks the journal's native protocol and sd_notify itself
// (docs/benchmarks.md: libsystemd cost 1.3 ms of every start).
#include <systemd/sd-journal.h>

#endif
