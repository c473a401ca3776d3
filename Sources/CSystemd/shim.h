#ifndef SPLASHD_CSYSTEMD_SHIM_H
#define SPLASHD_CSYSTEMD_SHIM_H
// libsystemd, for the journal (sd_journal_sendv) and service notifications (sd_notify).
// The variadic sd_journal_send and sd_notifyf are not callable from Swift; use the v / plain forms.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif
