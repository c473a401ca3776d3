#!/usr/bin/python3
"""A tiny HTTPS server for the built-in plugins: a token endpoint and a config document."""
import http.server, json, os, socket, ssl, sys, urllib.parse

CERT, KEY = sys.argv[1], sys.argv[2]
CONFIG = json.dumps({"systest": True, "greeting": "hello from the system test"}).encode()
ETAG = '"systest-1"'

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, code, body, headers=()):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/config.json":
            return self.reply(404, b"{}")
        if self.headers.get("If-None-Match") == ETAG:
            self.send_response(304)
            self.send_header("ETag", ETAG)
            self.send_header("Content-Length", "0")
            return self.end_headers()
        self.reply(200, CONFIG, [("ETag", ETAG)])

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        ok = (self.path == "/token" and form.get("grant_type") == ["refresh_token"]
              and form.get("refresh_token") == ["systest-refresh-1"]
              and form.get("client_id") == ["splashd-systest"])
        sys.stderr.write("token request: grant_type=%s client_id=%s accepted=%s\n"
                         % (form.get("grant_type"), form.get("client_id"), ok))
        if not ok:
            return self.reply(400, b'{"error":"invalid_grant"}')
        self.reply(200, json.dumps({"access_token": "systest-access-2", "refresh_token": "systest-refresh-2",
                                    "token_type": "Bearer", "expires_in": 3600}).encode())

    def log_message(self, fmt, *args):
        sys.stderr.write("request: " + (fmt % args) + "\n")
        sys.stderr.flush()

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(CERT, KEY)
server.socket = context.wrap_socket(server.socket, server_side=True)
port = server.server_address[1]
with open("/run/systest-https.port", "w") as f:
    f.write("%d\n" % port)
address = os.environ.get("NOTIFY_SOCKET", "")
if address:
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.sendto(("READY=1\nSTATUS=listening on 127.0.0.1:%d" % port).encode(),
                  "\0" + address[1:] if address.startswith("@") else address)
server.serve_forever()
