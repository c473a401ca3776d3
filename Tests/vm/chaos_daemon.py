#!/usr/bin/python3
"""A daemon that floods its subscribers, for test_kms_chaos.py (it runs in the guest).

Serves splashd's protocol on the socket at argv[1]: `hello`, an `ok` to each request (its id
echoed), and to a subscriber, in order:
1. one state of the largest kind splashd sends: 250 steps with ids and labels, every text at its
   bound (message 1,024 bytes, reasons 512), the line just under 64 KiB;
2. argv[3] states, at most argv[2] a second (10,000 a second: what a subscriber with ticks would
   get from a hundred busy launches), each a new message, as fast as the renderer reads them;
3. one more line of 70,000 bytes, over the protocol's bound (a daemon that breaks it);
4. on the connection that follows (the renderer connects again), the error state with every text
   at its bound, and then nothing, holding the connection.

Writes `flooded N in S s` and `reconnected` to stdout as it goes.
"""

import json
import os
import socket
import sys
import time

path, rate, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
LAUNCH = "chaos-launch"


def state(seq, phase="loading", message="Loading", steps=(), error=None, reason_bytes=512):
    return {
        "type": "state", "seq": seq, "launch": LAUNCH, "phase": phase, "reason": "boot", "slow": True,
        "progress": 0.5, "message": message, "elapsed_ms": seq, "steps": list(steps), "error": error,
        "destination": None,
    }


def line(message):
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def largest(seq):
    steps = [{"id": f"step-{i:03d}-of-the-largest-graph", "status": "failed", "attempt": 1, "duration_ms": 12345,
              "label": f"Step {i} of the largest graph", "critical": False, "reason": "r" * 32} for i in range(250)]
    message = state(seq, message="m" * 1021 + "…", steps=steps)
    # Filled up to just under the bound with the first step's reason.
    room = 65536 - len(line(message))
    assert room > 0
    steps[0]["reason"] = "r" * (32 + room - 1)
    return message


def serve(conn, first):
    reader = conn.makefile("rb")
    conn.sendall(line({"type": "hello", "protocol": 1, "version": "0.1.0"}))
    request = json.loads(reader.readline())
    conn.sendall(line({"type": "ok", "id": request.get("id")}))
    if first:
        conn.sendall(line(largest(1)))
        count, start = 0, time.monotonic()
        batch = max(1, rate // 100)
        while count < total:
            due = min(total, int((time.monotonic() - start) * rate))
            chunk = b"".join(line(state(2 + count + i, message=f"Message {count + i}")) for i in range(max(1, min(batch, due - count))))
            conn.sendall(chunk)
            count += chunk.count(b"\n")
        print(f"flooded {count} in {time.monotonic() - start:.1f} s", flush=True)
        conn.sendall(b'{"type":"state","message":"' + b"x" * 70000 + b'"}\n')
        return
    print("reconnected", flush=True)
    error = {"code": "step-failed", "message": "E" * 1021 + "…", "step": "step-000", "actions": ["retry"],
             "detail": "d" * 1021 + "…"}
    conn.sendall(line(state(10**9, phase="error", message="E" * 1021 + "…", error=error)))
    reader.read()  # held until the renderer goes


if os.path.exists(path):
    os.unlink(path)
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(4)
first = True
while True:
    conn, _ = server.accept()
    try:
        serve(conn, first)
    except (BrokenPipeError, ConnectionResetError):
        pass
    first = False
    conn.close()
