#ifndef SPLASHD_CSYSTEMDBUS_H
#define SPLASHD_CSYSTEMDBUS_H
// The app's unit through systemd's D-Bus API, with libsystemd's sd-bus (SPEC §14).
//
// libsystemd is loaded with dlopen the first time a function here is called, so a daemon
// without [app] never loads it: it cost 1.3 ms of every start and 1.2 MB of resident memory
// (docs/benchmarks.md). Every function returns 0 or a negative errno, with a message in `err`.
#include <stddef.h>

typedef struct {
    char active_state[32];
    char sub_state[32];
    /// Whether a job is queued for the unit (someone asked to start, stop or restart it).
    int has_job;
} splashd_unit_state;

typedef void (*splashd_unit_callback)(void *context, const splashd_unit_state *state);

/// Watches `unit` on the system bus: calls `callback` with its state at once and after every
/// change systemd reports (org.freedesktop.DBus.Properties.PropertiesChanged, after Subscribe),
/// until `stop_fd` is readable (returns 0) or the bus connection fails (returns -errno).
int splashd_bus_watch_unit(const char *unit, int stop_fd, splashd_unit_callback callback, void *context,
                           char *err, size_t err_length);

enum splashd_unit_method {
    SPLASHD_UNIT_START = 0,   // StartUnit(unit, "replace")
    SPLASHD_UNIT_RESTART = 1, // RestartUnit(unit, "replace")
    SPLASHD_UNIT_KILL = 2,    // KillUnit(unit, "all", SIGKILL)
};

/// Calls `method` on `unit` over a connection of its own; returns once systemd answered (a
/// start or restart job is then queued, not necessarily done).
int splashd_bus_unit_call(int method, const char *unit, char *err, size_t err_length);

#endif
