#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include "CLibsystemdBus.h"
#include "libsystemd.h"

// The functions used, resolved from libsystemd.so.0 (loaded by libsystemd.c) once.
static struct {
    int loaded; // 1 loaded, <0 failed (-errno)
    char error[200];
    __typeof__(sd_bus_open_system) *open_system;
    __typeof__(sd_bus_flush_close_unref) *flush_close_unref;
    __typeof__(sd_bus_call_method) *call_method;
    __typeof__(sd_bus_match_signal) *match_signal;
    __typeof__(sd_bus_process) *process;
    __typeof__(sd_bus_get_fd) *get_fd;
    __typeof__(sd_bus_get_events) *get_events;
    __typeof__(sd_bus_get_timeout) *get_timeout;
    __typeof__(sd_bus_message_read) *message_read;
    __typeof__(sd_bus_message_enter_container) *enter_container;
    __typeof__(sd_bus_message_exit_container) *exit_container;
    __typeof__(sd_bus_message_skip) *skip;
    __typeof__(sd_bus_message_unref) *message_unref;
    __typeof__(sd_bus_error_free) *error_free;
    __typeof__(sd_bus_path_encode) *path_encode;
    __typeof__(sd_bus_slot_unref) *slot_unref;
    __typeof__(sd_bus_get_n_queued_read) *get_n_queued_read;
    __typeof__(sd_bus_new) *new_bus;
    __typeof__(sd_bus_set_address) *set_address;
    __typeof__(sd_bus_set_bus_client) *set_bus_client;
    __typeof__(sd_bus_start) *start;
    __typeof__(sd_bus_unref) *unref;
    __typeof__(sd_bus_message_get_sender) *get_sender;
    __typeof__(sd_bus_add_match) *add_match;
    __typeof__(sd_bus_error_has_name) *error_has_name;
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = SPLASHD_LIBSYSTEMD_HANDLE(lib);
    if (!handle) return;
#define RESOLVE(field, symbol) SPLASHD_RESOLVE(handle, lib, field, symbol)
    RESOLVE(open_system, sd_bus_open_system)
    RESOLVE(flush_close_unref, sd_bus_flush_close_unref)
    RESOLVE(call_method, sd_bus_call_method)
    RESOLVE(match_signal, sd_bus_match_signal)
    RESOLVE(process, sd_bus_process)
    RESOLVE(get_fd, sd_bus_get_fd)
    RESOLVE(get_events, sd_bus_get_events)
    RESOLVE(get_timeout, sd_bus_get_timeout)
    RESOLVE(message_read, sd_bus_message_read)
    RESOLVE(enter_container, sd_bus_message_enter_container)
    RESOLVE(exit_container, sd_bus_message_exit_container)
    RESOLVE(skip, sd_bus_message_skip)
    RESOLVE(message_unref, sd_bus_message_unref)
    RESOLVE(error_free, sd_bus_error_free)
    RESOLVE(path_encode, sd_bus_path_encode)
    RESOLVE(slot_unref, sd_bus_slot_unref)
    RESOLVE(get_n_queued_read, sd_bus_get_n_queued_read)
    RESOLVE(new_bus, sd_bus_new)
    RESOLVE(set_address, sd_bus_set_address)
    RESOLVE(set_bus_client, sd_bus_set_bus_client)
    RESOLVE(start, sd_bus_start)
    RESOLVE(unref, sd_bus_unref)
    RESOLVE(get_sender, sd_bus_message_get_sender)
    RESOLVE(add_match, sd_bus_add_match)
    RESOLVE(error_has_name, sd_bus_error_has_name)
#undef RESOLVE
    lib.loaded = 1;
}

static int ensure_loaded(char *err, size_t err_length) {
    pthread_once(&load_once, load);
    if (lib.loaded < 0) {
        snprintf(err, err_length, "%s", lib.error);
        return lib.loaded;
    }
    return 0;
}

static int fail(int r, const sd_bus_error *error, const char *what, char *err, size_t err_length) {
    if (error && error->message) {
        snprintf(err, err_length, "%s: %s (%s)", what, error->message, error->name ? error->name : "?");
    } else {
        snprintf(err, err_length, "%s: %s", what, strerror(-r));
    }
    return r < 0 ? r : -EIO;
}

// The system bus, or the bus at `address` (a test's private bus with a fake systemd on it).
static int open_bus(const char *address, sd_bus **bus) {
    if (!address) return lib.open_system(bus);
    sd_bus *b = NULL;
    int r = lib.new_bus(&b);
    if (r >= 0) r = lib.set_address(b, address);
    if (r >= 0) r = lib.set_bus_client(b, 1);
    if (r >= 0) r = lib.start(b);
    if (r < 0) {
        if (b) lib.unref(b);
        return r;
    }
    *bus = b;
    return 0;
}

// Only the owner of a bus name speaks for it (design §18). A match on a well-known sender is
// enforced by the bus daemon for broadcasts only: a signal sent to splashd's unique name by any
// peer reaches the match's handler all the same, and the system bus's policy lets every user send
// signals. So each watch follows the name's current unique owner (GetNameOwner, then the bus
// daemon's NameOwnerChanged) and takes a signal only when its sender is that owner.

static const char *const bus_service = "org.freedesktop.DBus";

typedef struct {
    const char *name;
    /// The name's unique owner now; empty while nobody owns it.
    char owner[256];
    /// Called when the owner changed (NULL: not needed), with the new owner (empty: none).
    void (*changed)(void *context, const char *owner);
    void *context;
} name_owner;

static void copy(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from ? from : "");
}

// The bus daemon's NameOwnerChanged for the watched name: the daemon itself sends it (its sender
// is `org.freedesktop.DBus`, a name no peer can own), a peer's copy is not taken.
static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    name_owner *o = userdata;
    const char *sender = lib.get_sender(message);
    if (!sender || strcmp(sender, bus_service) != 0) return 0;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (lib.message_read(message, "sss", &name, &old_owner, &new_owner) < 0 || !name || strcmp(name, o->name) != 0) return 0;
    copy(o->owner, sizeof o->owner, new_owner);
    if (o->changed) o->changed(o->context, o->owner);
    return 0;
}

// Follows the owner of `o->name`: the match first, then the owner now, so no change between the
// two is missed (a NameOwnerChanged queued before GetNameOwner's answer ends at the same owner).
static int follow_owner(sd_bus *bus, name_owner *o, sd_bus_slot **slot, char *err, size_t err_length) {
    char rule[512];
    snprintf(rule, sizeof rule,
             "type='signal',sender='%s',path='/org/freedesktop/DBus',interface='%s',member='NameOwnerChanged',arg0='%s'",
             bus_service, bus_service, o->name);
    int r = lib.add_match(bus, slot, rule, on_name_owner_changed, o);
    if (r < 0) return fail(r, NULL, "adding the NameOwnerChanged match", err, err_length);
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    const char *owner = NULL;
    o->owner[0] = 0;
    r = lib.call_method(bus, bus_service, "/org/freedesktop/DBus", bus_service, "GetNameOwner", &error, &reply, "s", o->name);
    if (r >= 0) {
        r = lib.message_read(reply, "s", &owner);
        if (r >= 0) copy(o->owner, sizeof o->owner, owner);
        else fail(r, NULL, "reading GetNameOwner's answer", err, err_length);
    } else if (lib.error_has_name(&error, "org.freedesktop.DBus.Error.NameHasNoOwner")) {
        r = 0;
    } else {
        fail(r, &error, "GetNameOwner", err, err_length);
    }
    lib.error_free(&error);
    if (reply) lib.message_unref(reply);
    return r < 0 ? r : 0;
}

// Whether `message` comes from the name's owner of the moment.
static int from_owner(sd_bus_message *message, const name_owner *o) {
    const char *sender = lib.get_sender(message);
    return sender && o->owner[0] && strcmp(sender, o->owner) == 0;
}

// The sender of a refused message, for the report.
static void sender_of(sd_bus_message *message, char *to, size_t size) {
    const char *sender = lib.get_sender(message);
    copy(to, size, sender ? sender : "(no sender)");
}

static const char *const manager_path = "/org/freedesktop/systemd1";
static const char *const service = "org.freedesktop.systemd1";

static const char *const unit_interface = "org.freedesktop.systemd1.Unit";
static const char *const service_interface = "org.freedesktop.systemd1.Service";

typedef struct {
    sd_bus *bus;
    const char *unit;
    const char *path;
    splashd_unit_callback callback;
    void *context;
    // The unit's state as the signals so far had it: each signal carries the properties that
    // changed, with their values (systemd's are all of them: they are EMITS_CHANGE).
    splashd_unit_event state;
    // The signals being dispatched came before GetAll's answer: their states are older than it.
    int stale;
    // systemd's unique name on the bus: only its signals are taken.
    name_owner systemd;
    int failure;
    char *err;
    size_t err_length;
} watch;

// Calls `read` for each member of the a{sv} of a PropertiesChanged signal or a GetAll reply, with
// the message at the member's variant; `read` reads it (or skips it) and returns 0 or -errno.
typedef int (*property_reader)(sd_bus_message *m, const char *name, void *context);

static int each_property(sd_bus_message *m, property_reader read, void *context) {
    int r = lib.enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    while ((r = lib.enter_container(m, 'e', "sv")) > 0) {
        const char *name = NULL;
        r = lib.message_read(m, "s", &name);
        if (r < 0) return r;
        r = read(m, name, context);
        if (r < 0) return r;
        r = lib.exit_container(m);
        if (r < 0) return r;
    }
    if (r < 0) return r;
    return lib.exit_container(m);
}

// ActiveState, SubState and Job of the Unit interface, into w->state; every other is skipped.
static int read_unit_property(sd_bus_message *m, const char *name, void *context) {
    watch *w = context;
    const char *text = NULL;
    int r;
    if (strcmp(name, "ActiveState") == 0) {
        r = lib.message_read(m, "v", "s", &text);
        if (r >= 0) copy(w->state.active_state, sizeof w->state.active_state, text);
    } else if (strcmp(name, "SubState") == 0) {
        r = lib.message_read(m, "v", "s", &text);
        if (r >= 0) copy(w->state.sub_state, sizeof w->state.sub_state, text);
    } else if (strcmp(name, "Job") == 0) {
        uint32_t job = 0;
        const char *job_path = NULL;
        r = lib.message_read(m, "v", "(uo)", &job, &job_path);
        if (r >= 0) w->state.job = job;
    } else {
        r = lib.skip(m, "v");
    }
    return r < 0 ? r : 0;
}

// MainPID and Result of the Service interface, into w->state; every other is skipped.
static int read_service_property(sd_bus_message *m, const char *name, void *context) {
    watch *w = context;
    const char *text = NULL;
    int r;
    if (strcmp(name, "MainPID") == 0) {
        uint32_t pid = 0;
        r = lib.message_read(m, "v", "u", &pid);
        if (r >= 0) w->state.main_pid = pid;
    } else if (strcmp(name, "Result") == 0) {
        r = lib.message_read(m, "v", "s", &text);
        if (r >= 0) copy(w->state.result, sizeof w->state.result, text);
    } else {
        r = lib.skip(m, "v");
    }
    return r < 0 ? r : 0;
}

// The unit's properties (`service` 0) or the service's (`service` 1), into w->state.
static int read_properties(sd_bus_message *m, watch *w, int service) {
    return each_property(m, service ? read_service_property : read_unit_property, w);
}

static void report(watch *w) {
    splashd_unit_event event = w->state;
    event.kind = SPLASHD_UNIT_EVENT_STATE;
    w->callback(w->context, &event);
}

// The unit's state now, into w->state: GetAll of the Service interface (the unit may not be a
// service, or not loaded: then none of its values), then of the Unit interface, whose values
// belong together.
static int read_all(sd_bus *bus, watch *w) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = lib.call_method(bus, service, w->path, "org.freedesktop.DBus.Properties", "GetAll", &error, &reply, "s",
                            service_interface);
    if (r >= 0) read_properties(reply, w, 1);
    lib.error_free(&error);
    if (reply) lib.message_unref(reply);
    reply = NULL;
    r = lib.call_method(bus, service, w->path, "org.freedesktop.DBus.Properties", "GetAll", &error, &reply, "s",
                        unit_interface);
    if (r >= 0) r = read_properties(reply, w, 0);
    if (r < 0) fail(r, &error, "reading the unit's state", w->err, w->err_length);
    lib.error_free(&error);
    if (reply) lib.message_unref(reply);
    return r < 0 ? r : 0;
}

// A signal in systemd's name from another sender: reported, never taken.
static void refuse_unit_signal(watch *w, sd_bus_message *message) {
    splashd_unit_event event = {.kind = SPLASHD_UNIT_EVENT_REFUSED};
    sender_of(message, event.sender, sizeof event.sender);
    w->callback(w->context, &event);
}

static int on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    watch *w = userdata;
    if (!from_owner(message, &w->systemd)) {
        refuse_unit_signal(w, message);
        return 0;
    }
    if (w->stale) return 0;
    const char *interface = NULL;
    if (lib.message_read(message, "s", &interface) < 0 || !interface) return 0;
    int is_unit = strcmp(interface, unit_interface) == 0;
    if (!is_unit && strcmp(interface, service_interface) != 0) return 0;
    int r = read_properties(message, w, !is_unit);
    if (r < 0) {
        if (!w->failure) w->failure = fail(r, NULL, "reading a PropertiesChanged signal", w->err, w->err_length);
        return 0;
    }
    // The Service interface's signal comes first, the Unit interface's right after it.
    if (is_unit) report(w);
    return 0;
}

static int on_job_removed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    watch *w = userdata;
    if (!from_owner(message, &w->systemd)) {
        refuse_unit_signal(w, message);
        return 0;
    }
    uint32_t id = 0;
    const char *job_path = NULL, *unit = NULL, *result = NULL;
    if (lib.message_read(message, "uoss", &id, &job_path, &unit, &result) < 0 || !unit || strcmp(unit, w->unit) != 0) return 0;
    splashd_unit_event event = {.kind = SPLASHD_UNIT_EVENT_JOB_REMOVED, .job = id};
    copy(event.result, sizeof event.result, result);
    w->callback(w->context, &event);
    return 0;
}

// Dispatches what comes on `bus` until `stop_fd` is readable (0), the bus fails (-errno), or a
// handler set `*failure`; blocked in poll(2) between messages.
static int serve_bus(sd_bus *bus, int stop_fd, const int *failure, char *err, size_t err_length) {
    for (;;) {
        int r;
        do {
            r = lib.process(bus, NULL);
            if (r < 0) return fail(r, NULL, "processing the bus", err, err_length);
            if (*failure) return *failure;
        } while (r > 0);
        struct pollfd fds[2] = {
            {.fd = lib.get_fd(bus), .events = (short)lib.get_events(bus)},
            {.fd = stop_fd, .events = POLLIN},
        };
        uint64_t usec = UINT64_MAX;
        int timeout = -1;
        if (lib.get_timeout(bus, &usec) >= 0 && usec != UINT64_MAX) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            uint64_t n = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
            timeout = usec <= n ? 0 : (int)((usec - n + 999) / 1000);
        }
        if (poll(fds, 2, timeout) < 0 && errno != EINTR) return fail(-errno, NULL, "poll", err, err_length);
        if (fds[1].revents) return 0;
    }
}

int splashd_bus_watch_unit(const char *address, const char *unit, int stop_fd, splashd_unit_callback callback, void *context,
                           char *err, size_t err_length) {
    int r = ensure_loaded(err, err_length);
    if (r < 0) return r;
    sd_bus *bus = NULL;
    sd_bus_slot *slot = NULL, *jobs = NULL, *owner = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    char *path = NULL;
    watch w = {.unit = unit, .callback = callback, .context = context, .err = err, .err_length = err_length};
    w.systemd.name = service;

    r = open_bus(address, &bus);
    if (r < 0) { fail(r, NULL, "connecting to the system bus", err, err_length); goto out; }
    r = lib.path_encode("/org/freedesktop/systemd1/unit", unit, &path);
    if (r < 0) { fail(r, NULL, "encoding the unit's object path", err, err_length); goto out; }
    w.path = path;
    w.bus = bus;
    r = follow_owner(bus, &w.systemd, &owner, err, err_length);
    if (r < 0) goto out;
    r = lib.match_signal(bus, &slot, service, path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                         on_properties_changed, &w);
    if (r < 0) { fail(r, NULL, "adding the PropertiesChanged match", err, err_length); goto out; }
    r = lib.match_signal(bus, &jobs, service, manager_path, "org.freedesktop.systemd1.Manager", "JobRemoved",
                         on_job_removed, &w);
    if (r < 0) { fail(r, NULL, "adding the JobRemoved match", err, err_length); goto out; }
    // systemd sends units' change signals only to subscribed clients.
    r = lib.call_method(bus, service, manager_path, "org.freedesktop.systemd1.Manager", "Subscribe", &error, NULL, "");
    if (r < 0) { fail(r, &error, "Subscribe", err, err_length); goto out; }
    r = read_all(bus, &w);
    if (r < 0) goto out;
    // The messages the calls above queued came before GetAll's answer. Their states are older
    // than it and would follow it as if newer (a unit seen running with its start job after the
    // state that says the job ended), so they are dropped; their JobRemoved are facts and go out
    // first. Each sd_bus_process dispatches one queued message.
    uint64_t queued = 0;
    if (lib.get_n_queued_read(bus, &queued) >= 0) {
        w.stale = 1;
        for (; queued > 0; queued--) {
            r = lib.process(bus, NULL);
            if (r < 0) { fail(r, NULL, "processing the bus", err, err_length); goto out; }
            if (r == 0) break;
        }
        w.stale = 0;
    }
    report(&w);
    r = serve_bus(bus, stop_fd, &w.failure, err, err_length);
out:
    lib.error_free(&error);
    if (slot) lib.slot_unref(slot);
    if (jobs) lib.slot_unref(jobs);
    if (owner) lib.slot_unref(owner);
    if (bus) lib.flush_close_unref(bus);
    free(path);
    return r;
}

// The id at the end of a job's object path (/org/freedesktop/systemd1/job/1234); 0 if none.
static uint32_t job_id(const char *path) {
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!slash || !slash[1]) return 0;
    char *end = NULL;
    errno = 0;
    unsigned long id = strtoul(slash + 1, &end, 10);
    return (errno || *end || id > UINT32_MAX) ? 0 : (uint32_t)id;
}

int splashd_bus_unit_call(const char *address, int method, const char *unit, uint32_t *job, char *err, size_t err_length) {
    if (job) *job = 0;
    int r = ensure_loaded(err, err_length);
    if (r < 0) return r;
    sd_bus *bus = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    r = open_bus(address, &bus);
    if (r < 0) { fail(r, NULL, "connecting to the system bus", err, err_length); goto out; }
    const char *interface = "org.freedesktop.systemd1.Manager";
    switch (method) {
    case SPLASHD_UNIT_START:
        r = lib.call_method(bus, service, manager_path, interface, "StartUnit", &error, &reply, "ss", unit, "replace");
        if (r < 0) fail(r, &error, "StartUnit", err, err_length);
        break;
    case SPLASHD_UNIT_RESTART:
        r = lib.call_method(bus, service, manager_path, interface, "RestartUnit", &error, &reply, "ss", unit, "replace");
        if (r < 0) fail(r, &error, "RestartUnit", err, err_length);
        break;
    case SPLASHD_UNIT_KILL:
        r = lib.call_method(bus, service, manager_path, interface, "KillUnit", &error, &reply, "ssi", unit, "all", (int32_t)SIGKILL);
        if (r < 0) fail(r, &error, "KillUnit", err, err_length);
        break;
    default:
        r = -EINVAL;
        snprintf(err, err_length, "unknown method %d", method);
    }
    if (r >= 0 && job && method != SPLASHD_UNIT_KILL) {
        const char *path = NULL;
        if (lib.message_read(reply, "o", &path) >= 0) *job = job_id(path);
    }
out:
    lib.error_free(&error);
    if (reply) lib.message_unref(reply);
    if (bus) lib.flush_close_unref(bus);
    return r < 0 ? r : 0;
}

// RAUC's installer (design §15).

static const char *const rauc_service = "de.pengutronix.rauc";
static const char *const rauc_interface = "de.pengutronix.rauc.Installer";

typedef struct {
    splashd_rauc_callback callback;
    void *context;
    int failure;
    char *err;
    size_t err_length;
    // RAUC's unique name on the bus: only its signals are taken.
    name_owner rauc;
} rauc_watch;

// A signal in RAUC's name from another sender: reported, never taken.
static void refuse_rauc_signal(rauc_watch *w, sd_bus_message *message) {
    splashd_rauc_event event = {.kind = SPLASHD_RAUC_EVENT_REFUSED};
    sender_of(message, event.sender, sizeof event.sender);
    w->callback(w->context, &event);
}

// RAUC took its name, or left the bus (killed, restarted, stopped).
static void rauc_owner_changed(void *context, const char *owner) {
    rauc_watch *w = context;
    splashd_rauc_event event = {.kind = SPLASHD_RAUC_EVENT_OWNER};
    copy(event.sender, sizeof event.sender, owner);
    w->callback(w->context, &event);
}

// Operation, Progress and LastError of the Installer, into the event; every other is skipped.
static int read_rauc_property(sd_bus_message *m, const char *name, void *context) {
    splashd_rauc_event *event = context;
    const char *text = NULL;
    int r;
    if (strcmp(name, "Operation") == 0) {
        r = lib.message_read(m, "v", "s", &text);
        if (r >= 0) { event->has_operation = 1; copy(event->operation, sizeof event->operation, text); }
    } else if (strcmp(name, "Progress") == 0) {
        int32_t percentage = 0, depth = 0;
        r = lib.message_read(m, "v", "(isi)", &percentage, &text, &depth);
        if (r >= 0) {
            event->has_progress = 1;
            event->percentage = percentage;
            event->depth = depth;
            copy(event->message, sizeof event->message, text);
        }
    } else if (strcmp(name, "LastError") == 0) {
        r = lib.message_read(m, "v", "s", &text);
        if (r >= 0) { event->has_last_error = 1; copy(event->last_error, sizeof event->last_error, text); }
    } else {
        r = lib.skip(m, "v");
    }
    return r < 0 ? r : 0;
}

static int read_rauc_properties(sd_bus_message *m, splashd_rauc_event *event) {
    return each_property(m, read_rauc_property, event);
}

static int on_rauc_properties(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    rauc_watch *w = userdata;
    if (!from_owner(message, &w->rauc)) {
        refuse_rauc_signal(w, message);
        return 0;
    }
    const char *interface = NULL;
    if (lib.message_read(message, "s", &interface) < 0 || !interface || strcmp(interface, rauc_interface) != 0) return 0;
    splashd_rauc_event event = {.kind = SPLASHD_RAUC_EVENT_PROPERTIES};
    int r = read_rauc_properties(message, &event);
    if (r < 0) {
        // A signal that does not read as RAUC's is not taken; the watch goes on.
        return 0;
    }
    w->callback(w->context, &event);
    return 0;
}

static int on_rauc_completed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    rauc_watch *w = userdata;
    if (!from_owner(message, &w->rauc)) {
        refuse_rauc_signal(w, message);
        return 0;
    }
    int32_t result = 0;
    if (lib.message_read(message, "i", &result) < 0) return 0;
    splashd_rauc_event event = {.kind = SPLASHD_RAUC_EVENT_COMPLETED, .result = result};
    w->callback(w->context, &event);
    return 0;
}

int splashd_bus_watch_rauc(const char *address, int stop_fd, splashd_rauc_callback callback, void *context, char *err,
                           size_t err_length) {
    int r = ensure_loaded(err, err_length);
    if (r < 0) return r;
    sd_bus *bus = NULL;
    sd_bus_slot *properties = NULL, *completed = NULL, *owner = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    rauc_watch w = {.callback = callback, .context = context, .err = err, .err_length = err_length};
    w.rauc.name = rauc_service;

    r = open_bus(address, &bus);
    if (r < 0) { fail(r, NULL, "connecting to the system bus", err, err_length); goto out; }
    // Matched by the well-known name: the bus daemon routes by the owner of the moment, so a RAUC
    // that starts (or restarts) later is heard too; each signal's sender is checked against that
    // owner all the same (follow_owner).
    r = lib.match_signal(bus, &properties, rauc_service, "/", "org.freedesktop.DBus.Properties", "PropertiesChanged",
                         on_rauc_properties, &w);
    if (r < 0) { fail(r, NULL, "adding RAUC's PropertiesChanged match", err, err_length); goto out; }
    r = lib.match_signal(bus, &completed, rauc_service, "/", rauc_interface, "Completed", on_rauc_completed, &w);
    if (r < 0) { fail(r, NULL, "adding RAUC's Completed match", err, err_length); goto out; }
    // Its owner now, if it runs (GetNameOwner starts nothing; a GetAll would bus-activate it).
    r = follow_owner(bus, &w.rauc, &owner, err, err_length);
    if (r < 0) goto out;
    if (w.rauc.owner[0]) {
        r = lib.call_method(bus, w.rauc.owner, "/", "org.freedesktop.DBus.Properties", "GetAll", &error, &reply, "s",
                            rauc_interface);
        if (r >= 0) {
            splashd_rauc_event event = {.kind = SPLASHD_RAUC_EVENT_PROPERTIES};
            if (read_rauc_properties(reply, &event) >= 0) callback(context, &event);
        }
        // RAUC gone between the two calls: its next start is heard by the matches.
        lib.error_free(&error);
        if (reply) lib.message_unref(reply);
        reply = NULL;
    } else {
        // Not on the bus: an install this watch saw begin cannot go on (RAUC left while the
        // watch was away).
        rauc_owner_changed(&w, "");
    }
    // From here on, every change of owner is told.
    w.rauc.changed = rauc_owner_changed;
    w.rauc.context = &w;
    r = serve_bus(bus, stop_fd, &w.failure, err, err_length);
out:
    lib.error_free(&error);
    if (reply) lib.message_unref(reply);
    if (properties) lib.slot_unref(properties);
    if (completed) lib.slot_unref(completed);
    if (owner) lib.slot_unref(owner);
    if (bus) lib.flush_close_unref(bus);
    return r;
}
