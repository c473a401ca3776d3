#!/usr/bin/python3
"""A hostile local user's signals (design §18): sent on the bus at argv[1], unicast to every
connection of process argv[2] (splashd's unique names), as if systemd and RAUC had sent them.

Any peer may send a signal to a unique name on the system bus, and a match on a well-known sender
holds only for broadcasts: splashd must check each signal's sender itself. Sends, to each of the
process's connections, argv[3] rounds of
- a PropertiesChanged of the unit argv[4] (ActiveState `failed`: "the app crashed") on systemd's
  unit path, and a JobRemoved of it;
- RAUC's PropertiesChanged (Operation `installing`, Progress 55 %) and Completed(1).
Prints `sent N to K connections`. Runs with Debian's python3-dbus, as any user.
"""

import sys

import dbus
import dbus.lowlevel


def escape(name):
    return "".join(c if c.isalnum() else "_%02x" % ord(c) for c in name)


def main():
    address, pid, rounds, unit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    bus = dbus.bus.BusConnection(address)
    daemon = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus")
    targets = []
    for name in daemon.ListNames():
        if not name.startswith(":"):
            continue
        try:
            if int(daemon.GetConnectionUnixProcessID(name)) == pid:
                targets.append(str(name))
        except dbus.DBusException:
            pass  # gone meanwhile

    def signal(destination, path, interface, member, *arguments):
        message = dbus.lowlevel.SignalMessage(path, interface, member)
        message.set_destination(destination)
        message.append(*arguments)
        bus.send_message(message)

    sent = 0
    for _ in range(rounds):
        for target in targets:
            signal(target, "/org/freedesktop/systemd1/unit/" + escape(unit), "org.freedesktop.DBus.Properties", "PropertiesChanged",
                   "org.freedesktop.systemd1.Unit",
                   dbus.Dictionary({"ActiveState": dbus.String("failed", variant_level=1),
                                    "SubState": dbus.String("failed", variant_level=1)}, signature="sv"),
                   dbus.Array([], signature="s"))
            signal(target, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "JobRemoved",
                   dbus.UInt32(1), dbus.ObjectPath("/org/freedesktop/systemd1/job/1"), unit, "failed")
            signal(target, "/", "org.freedesktop.DBus.Properties", "PropertiesChanged", "de.pengutronix.rauc.Installer",
                   dbus.Dictionary({"Operation": dbus.String("installing", variant_level=1),
                                    "Progress": dbus.Struct((dbus.Int32(55), "Spoofed", dbus.Int32(1)), signature="isi", variant_level=1)},
                                   signature="sv"),
                   dbus.Array([], signature="s"))
            signal(target, "/", "de.pengutronix.rauc.Installer", "Completed", dbus.Int32(1))
            sent += 4
    bus.flush()
    print(f"sent {sent} to {len(targets)} connections", flush=True)


if __name__ == "__main__":
    main()
