#ifndef SPLASHD_CSYSTEMDBUS_H
#define SPLASHD_CSYSTEMDBUS_H
// The app's unit through systemd's D-Bus API, with libsystemd's sd-bus (design §14).
//
// libsystemd is loaded with dlopen the first time a function here is called, so a daemon
// without [app] never loads it: it cost 1.3 ms of every start and 1.2 MB of resident memory
// (docs/benchmarks.md). Every function returns 0 or a negative errno, with a message in `err`.
#include <stddef.h>

#include <stdint.h>

enum splashd_unit_event_kind {
    SPLASHD_UNIT_EVENT_STATE = 0,       // the unit's state, as one signal (or GetAll) had it
    SPLASHD_UNIT_EVENT_JOB_REMOVED = 1, // systemd's JobRemoved for a job of the unit
    SPLASHD_UNIT_EVENT_REFUSED = 2,     // a signal in systemd's name from another sender: not taken
};

typedef struct {
    int kind; // enum splashd_unit_event_kind
    /// ActiveState and SubState (a state event).
    char active_state[32];
    char sub_state[32];
    /// A state event: the unit's Job id (0: none queued). JobRemoved: the job's id.
    uint32_t job;
    /// The service's MainPID (a state event; 0: none).
    uint32_t main_pid;
    /// A state event: the service's Result (`success`, `exit-code`, …). JobRemoved: the job's
    /// result (`done`, `canceled`, `failed`, …).
    char result[32];
    /// A refused signal: its sender's unique name.
    char sender[256];
} splashd_unit_event;

typedef void (*splashd_unit_callback)(void *context, const splashd_unit_event *event);

/// Watches `unit` on the system bus (or the bus at `address`, a D-Bus address, when not NULL)
/// until `stop_fd` is readable (returns 0) or the bus connection fails (returns -errno). Calls
/// `callback` with the unit's state at once (GetAll of the Unit and the Service interfaces), then
/// with the values of every change systemd sends (the PropertiesChanged signals, after Subscribe:
/// the Service interface's are kept and go out with the Unit interface's that systemd sends right
/// after them), and with every JobRemoved of the unit's jobs, in the order systemd sent them. The
/// values are never read again after a signal: they belong together as systemd sent them.
///
/// The first state is the newest when it goes out: the signals that came while the watch
/// connected (before GetAll's answer) are older than it, so their states are dropped; their
/// JobRemoved go out before it.
int splashd_bus_watch_unit(const char *address, const char *unit, int stop_fd, splashd_unit_callback callback,
                           void *context, char *err, size_t err_length);

enum splashd_unit_method {
    SPLASHD_UNIT_START = 0,   // StartUnit(unit, "replace")
    SPLASHD_UNIT_RESTART = 1, // RestartUnit(unit, "replace")
    SPLASHD_UNIT_KILL = 2,    // KillUnit(unit, "all", SIGKILL)
};

/// Calls `method` on `unit` over a connection of its own (to the system bus, or to `address` when
/// not NULL); returns once systemd answered (a start or restart job is then queued, not
/// necessarily done). `job`, when not NULL, gets the id of that job (0 for KillUnit, or when
/// systemd's answer names none).
int splashd_bus_unit_call(const char *address, int method, const char *unit, uint32_t *job, char *err,
                          size_t err_length);

/// What RAUC's installer said (`de.pengutronix.rauc.Installer`, design §15).
enum splashd_rauc_event_kind {
    SPLASHD_RAUC_EVENT_PROPERTIES = 0, // a PropertiesChanged signal (or the GetAll at the start)
    SPLASHD_RAUC_EVENT_COMPLETED = 1,  // the Completed signal
    SPLASHD_RAUC_EVENT_REFUSED = 2,    // a signal in RAUC's name from another sender: not taken
    SPLASHD_RAUC_EVENT_OWNER = 3,      // RAUC's owner changed: `sender` is the new one (empty: gone)
};

typedef struct {
    int kind; // enum splashd_rauc_event_kind
    /// Each field is set only when the signal carried it.
    int has_operation;
    char operation[32];
    int has_progress;
    int32_t percentage;
    int32_t depth;
    char message[512];
    int has_last_error;
    char last_error[1024];
    /// Completed's result: 0 succeeded, anything else failed.
    int32_t result;
    /// A refused signal: its sender's unique name. An owner event: RAUC's new unique name, empty
    /// when it left the bus.
    char sender[256];
} splashd_rauc_event;

typedef void (*splashd_rauc_callback)(void *context, const splashd_rauc_event *event);

/// Watches RAUC's installer on the system bus (or the bus at `address`) until `stop_fd` is
/// readable (returns 0) or the connection fails (-errno): its PropertiesChanged signals
/// (Operation, Progress, LastError) and Completed, in the order RAUC sent them. Reading them needs
/// no grant (RAUC's bus policy lets anyone talk to it). When RAUC is on the bus at the start, its
/// properties first (GetAll); RAUC is never started for it (no bus activation). When it is not, an
/// owner event with no owner first.
///
/// Only RAUC speaks for RAUC: a signal is taken only when its sender is the current unique owner
/// of `de.pengutronix.rauc`; any other is told as a `SPLASHD_RAUC_EVENT_REFUSED` event. Every
/// change of that owner after the start is told as a `SPLASHD_RAUC_EVENT_OWNER` event (RAUC
/// killed or stopped: an owner event with no owner).
int splashd_bus_watch_rauc(const char *address, int stop_fd, splashd_rauc_callback callback, void *context, char *err,
                           size_t err_length);

#endif
