#!/usr/bin/python3
# The system test's kiosk app (design §14): completes first-frame for every launch that waits for
# it, says where it is (route), and sends alive every second. SIGUSR1: exits by itself (0);
# SIGUSR2: fails (1); SIGSTOP: hangs; SIGKILL: crashes; SIGHUP: hangs without freezing (it goes
# on answering, but sends alive only every 30 s). /srv/systest/kiosk-mode, read at each
# start, makes it a broken app: `exit-at-start` exits 1 at once (a bad config, a missing
# library), `exit-random` exits 1 after a random 0-2 s.
import json, os, random, select, signal, socket, sys, time

signal.signal(signal.SIGUSR1, lambda *_: sys.exit(0))
signal.signal(signal.SIGUSR2, lambda *_: sys.exit(1))
late = [False]
signal.signal(signal.SIGHUP, lambda *_: late.__setitem__(0, True))
try:
    with open("/srv/systest/kiosk-mode") as mode_file:
        mode = mode_file.read().strip()
except OSError:
    mode = ""
if mode == "exit-at-start":
    sys.exit(1)
if mode == "exit-random":
    signal.signal(signal.SIGALRM, lambda *_: os._exit(1))
    signal.setitimer(signal.ITIMER_REAL, random.uniform(0.001, 2.0))


def connect():
    for _ in range(200):  # splashd restarting: the socket unit holds the socket, so this is short
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect("/run/splashd/splashd.sock")
            return s
        except OSError:
            time.sleep(0.05)
    sys.exit(3)


while True:
    sock = connect()
    send = lambda message: sock.sendall((json.dumps(message) + "\n").encode())
    send({"cmd": "subscribe"})
    send({"cmd": "route", "route": "orders/42"})
    done, buffer, last = set(), b"", 0.0
    while True:
        every = 30 if late[0] else 1
        now = time.monotonic()
        if now - last >= every:
            send({"cmd": "alive"})
            last = now
        readable, _, _ = select.select([sock], [], [], max(0.0, every - (time.monotonic() - last)))
        if not readable:
            continue
        data = sock.recv(65536)
        if not data:
            break
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if message.get("type") != "state" or message["phase"] != "loading" or message["launch"] in done:
                continue
            if any(step["id"] == "first-frame" and step["status"] == "running" for step in message["steps"]):
                send({"cmd": "complete", "step": "first-frame"})
                done.add(message["launch"])
