#!/usr/bin/python3
"""RAUC's installer for one install that never completes, on a private bus: what splashd's
`[update] rauc = true` watch reads when RAUC is killed, restarted or aborts mid-install (real
RAUC cannot be stopped at a chosen step).

Owns de.pengutronix.rauc on the bus at argv[1] and serves `de.pengutronix.rauc.Installer` on `/`:
Operation, Progress and LastError through org.freedesktop.DBus.Properties, and PropertiesChanged
with their values, as RAUC's GDBus skeleton sends them. Prints `ready` once it owns the name. Lines
on stdin: `install` (Operation installing, then Progress 30 % "Copying image to rootfs.1"),
`idle` (Operation idle, with no Completed: an aborted install), `exit` (leaves the bus: killed).
Runs with Debian's python3-dbus and python3-gi (/usr/bin/python3).
"""

import sys
import threading

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

INSTALLER = "de.pengutronix.rauc.Installer"
PROPERTIES = "org.freedesktop.DBus.Properties"


class Installer(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/")
        self.values = {
            "Operation": dbus.String("idle"),
            "Progress": dbus.Struct((dbus.Int32(0), "", dbus.Int32(0)), signature="isi"),
            "LastError": dbus.String(""),
        }

    def set(self, **changed):
        self.values.update(changed)
        self.PropertiesChanged(INSTALLER, {name: self.values[name] for name in changed}, [])

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.values[name]

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.values

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    bus.request_name("de.pengutronix.rauc")
    installer = Installer(bus)
    loop = GLib.MainLoop()

    def command(line):
        if line == "install":
            installer.set(Operation=dbus.String("installing"))
            installer.set(Progress=dbus.Struct((dbus.Int32(30), "Copying image to rootfs.1", dbus.Int32(2)), signature="isi"))
        elif line == "idle":
            installer.set(Operation=dbus.String("idle"))
        elif line == "exit":
            loop.quit()
        return False

    def read():
        for line in sys.stdin:
            GLib.idle_add(command, line.strip())
        GLib.idle_add(loop.quit)

    threading.Thread(target=read, daemon=True).start()
    print("ready", flush=True)
    loop.run()


if __name__ == "__main__":
    main()
