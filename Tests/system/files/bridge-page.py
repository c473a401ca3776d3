#!/usr/bin/python3
# The system test's page (check 17): connects to splashd-web as the kiosk's page does (the URL
# file's token, its Origin), sends one command, `dismissed`, and prints splashd's answer as the
# bridge relays it: its type and code. With the launch finished, a bridge that may send control
# commands gets `error invalid-transition`; one that may not, `error permission-denied`.
import base64, json, os, socket, struct, sys

url = open(sys.argv[1] if len(sys.argv) > 1 else "/run/splashd-web/url").read().strip()
origin, query = url.split("/?", 1)
host, port = origin[len("http://"):].rsplit(":", 1)
sock = socket.create_connection((host, int(port)), timeout=30)
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall((f"GET /ws?{query} HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: {origin}\r\nUpgrade: websocket\r\n"
              f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
head = b""
while b"\r\n\r\n" not in head:
    chunk = sock.recv(1)
    if not chunk:
        sys.exit(f"closed during the handshake: {head!r}")
    head += chunk
if not head.startswith(b"HTTP/1.1 101"):
    sys.exit(f"no upgrade: {head!r}")
payload = json.dumps({"cmd": "dismissed", "id": "probe"}).encode()
mask = os.urandom(4)
sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
buffer = b""
while True:
    while len(buffer) < 2:
        chunk = sock.recv(65536)
        if not chunk:
            sys.exit("the bridge closed the connection before it answered")
        buffer += chunk
    n, offset = buffer[1] & 0x7F, 2
    if n == 126:
        while len(buffer) < 4:
            buffer += sock.recv(65536)
        n, offset = struct.unpack("!H", buffer[2:4])[0], 4
    elif n == 127:
        while len(buffer) < 10:
            buffer += sock.recv(65536)
        n, offset = struct.unpack("!Q", buffer[2:10])[0], 10
    while len(buffer) < offset + n:
        chunk = sock.recv(65536)
        if not chunk:
            sys.exit("the bridge closed the connection before it answered")
        buffer += chunk
    opcode, frame, buffer = buffer[0] & 0x0F, buffer[offset:offset + n], buffer[offset + n:]
    if opcode == 0x8:
        sys.exit("the bridge closed the connection before it answered")
    if opcode != 0x1:
        continue
    message = json.loads(frame)
    if message.get("id") == "probe":
        print(message.get("type"), message.get("code", ""))
        break
