#!/usr/bin/python3
"""systemd's D-Bus API for one unit, on a private bus: what splashd's [app] watch talks to (design §14)
when the tests have no systemd as PID 1 (the browser tests, `make bench-app`).

Serves org.freedesktop.systemd1 on the bus at argv[1]: the Manager's Subscribe, StartUnit,
RestartUnit and KillUnit and its JobRemoved signal, and one unit (argv[2]) whose ActiveState,
SubState and Job are read with org.freedesktop.DBus.Properties and change with PropertiesChanged
(with their values), as systemd's do. Runs with Debian's python3-dbus and python3-gi
(/usr/bin/python3).

Each call is printed as a line `call METHOD UNIT`. Lines on stdin drive the unit: `exit` (it
stops by itself: inactive/dead), `fail` (failed/failed), `stop` (a stop someone asked for, as
systemd 252 sends it: down with the job, JobRemoved, the job gone). A start or restart is a job
too: the unit active/running with it, JobRemoved `done`, then without it.

With `--start-while-connecting` (argv[3]), the first GetAll of the Unit interface runs a whole
start job (its signals: active/running with job 1, JobRemoved, active/running without it) before
it answers: the signals a watch gets while it connects, older than the answer.
"""

import sys
import threading

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

MANAGER = "org.freedesktop.systemd1.Manager"
UNIT = "org.freedesktop.systemd1.Unit"
PROPERTIES = "org.freedesktop.DBus.Properties"


def escape(name):
    return "".join(c if c.isalnum() else "_%02x" % ord(c) for c in name)


class Unit(dbus.service.Object):
    def __init__(self, bus, name, on_first_get_all=None):
        self.name = name
        self.on_first_get_all = on_first_get_all
        self.path = "/org/freedesktop/systemd1/unit/" + escape(name)
        super().__init__(bus, self.path)
        self.active, self.sub, self.job = "inactive", "dead", 0

    def set(self, active, sub, job=0):
        self.active, self.sub, self.job = active, sub, job
        self.PropertiesChanged(UNIT, self.values(), [])

    def values(self):
        return {
            "ActiveState": dbus.String(self.active),
            "SubState": dbus.String(self.sub),
            "Job": dbus.Struct((dbus.UInt32(self.job), dbus.ObjectPath("/org/freedesktop/systemd1/job/%d" % self.job if self.job else "/")), signature="uo"),
        }

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.values()[name]

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface == UNIT and self.on_first_get_all:
            run, self.on_first_get_all = self.on_first_get_all, None
            run()
        return self.values()

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class Manager(dbus.service.Object):
    def __init__(self, bus, unit):
        super().__init__(bus, "/org/freedesktop/systemd1")
        self.unit = unit
        self.jobs = 0

    @dbus.service.signal(MANAGER, signature="uoss")
    def JobRemoved(self, id, job, unit, result):
        pass

    def job(self, active, sub, now=False):
        """A job that brings the unit to ACTIVE/SUB: its path now, its signals from the main loop
        (or before this returns, `now`)."""
        self.jobs += 1
        id = self.jobs
        path = dbus.ObjectPath("/org/freedesktop/systemd1/job/%d" % id)

        def run():
            self.unit.set(active, sub, id)
            self.JobRemoved(dbus.UInt32(id), path, self.unit.name, "done")
            self.unit.set(active, sub)
            return False

        if now:
            run()
        else:
            GLib.idle_add(run)
        return path

    def record(self, method, name):
        print("call", method, name, flush=True)

    def check(self, name):
        if name != self.unit.name:
            raise dbus.exceptions.DBusException("Unit %s not found." % name, name="org.freedesktop.systemd1.NoSuchUnit")

    @dbus.service.method(MANAGER, in_signature="", out_signature="")
    def Subscribe(self):
        pass

    @dbus.service.method(MANAGER, in_signature="ss", out_signature="o")
    def StartUnit(self, name, mode):
        self.record("StartUnit", name)
        self.check(name)
        return self.job("active", "running")

    @dbus.service.method(MANAGER, in_signature="ss", out_signature="o")
    def RestartUnit(self, name, mode):
        self.record("RestartUnit", name)
        self.check(name)
        return self.job("active", "running")

    @dbus.service.method(MANAGER, in_signature="ssi", out_signature="")
    def KillUnit(self, name, whom, signal):
        self.record("KillUnit", name)
        self.check(name)
        GLib.idle_add(self.unit.set, "failed", "failed")


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    bus.request_name("org.freedesktop.systemd1")
    unit = Unit(bus, sys.argv[2])
    manager = Manager(bus, unit)
    if "--start-while-connecting" in sys.argv[3:]:
        unit.on_first_get_all = lambda: manager.job("active", "running", now=True)
    loop = GLib.MainLoop()

    def drive():
        for line in sys.stdin:
            command = line.strip()
            if command == "exit":
                GLib.idle_add(unit.set, "inactive", "dead")
            elif command == "fail":
                GLib.idle_add(unit.set, "failed", "failed")
            elif command == "stop":
                def stop():
                    manager.jobs += 1
                    id = manager.jobs
                    unit.set("inactive", "dead", id)
                    manager.JobRemoved(dbus.UInt32(id), dbus.ObjectPath("/org/freedesktop/systemd1/job/%d" % id), unit.name, "done")
                    unit.set("inactive", "dead")
                    return False
                GLib.idle_add(stop)
        GLib.idle_add(loop.quit)

    threading.Thread(target=drive, daemon=True).start()
    print("ready", flush=True)
    loop.run()


if __name__ == "__main__":
    main()
