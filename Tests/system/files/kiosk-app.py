#!/usr/bin/python3
# The system test's kiosk app (SPEC §14): completes first-frame for every launch that waits for
# it, says where it is (route), and sends alive every second. SIGUSR1: exits by itself (0);
# SIGUSR2: fails (1); SIGSTOP: hangs; SIGKILL: crashes.
import json, select, signal, socket, sys, time

signal.signal(signal.SIGUSR1, lambda *_: sys.exit(0))
signal.signal(signal.SIGUSR2, lambda *_: sys.exit(1))


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
        now = time.monotonic()
        if now - last >= 1:
            send({"cmd": "alive"})
            last = now
        readable, _, _ = select.select([sock], [], [], max(0.0, 1 - (time.monotonic() - last)))
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
