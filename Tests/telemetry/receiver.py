"""A real OTLP/HTTP receiver on loopback for the telemetry tests: decodes every request with the
official OpenTelemetry protobuf definitions (PyPI's opentelemetry-proto) and keeps it.

It can be told to answer 503 (a collector in trouble) or be stopped (a collector that is down),
or to be hostile (`mode`): accept a request and answer 200 with garbage or a 100 MB body, or
not accept it: hang, reset the connection, answer 429 with `Retry-After`.
"""

from __future__ import annotations

import gzip
import http.server
import socket
import struct
import threading

from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2


class Receiver:
    def __init__(self, port: int = 0):
        self.traces: list[trace_service_pb2.ExportTraceServiceRequest] = []
        self.metrics: list[metrics_service_pb2.ExportMetricsServiceRequest] = []
        self.raw: list[bytes] = []
        self.status = 200
        self.refused = 0
        # "ok", or hostile: "garbage" and "huge" take the request (it counts), "hang", "reset"
        # and "429" do not.
        self.mode = "ok"
        self.hostile = 0
        self.released = threading.Event()
        self.cond = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                with receiver.cond:
                    mode = receiver.mode
                    if mode in ("hang", "reset", "429"):
                        receiver.hostile += 1
                        receiver.cond.notify_all()
                if mode == "hang":
                    receiver.released.wait(60)
                    self.close_connection = True
                    return
                if mode == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                if mode == "429":
                    self.send_response(429)
                    self.send_header("Retry-After", "1")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                with receiver.cond:
                    status = receiver.status
                    if status == 200:
                        receiver.raw.append(body)
                        if self.path.endswith("/v1/traces"):
                            request = trace_service_pb2.ExportTraceServiceRequest()
                            request.ParseFromString(body)
                            receiver.traces.append(request)
                            reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                        else:
                            request = metrics_service_pb2.ExportMetricsServiceRequest()
                            request.ParseFromString(body)
                            receiver.metrics.append(request)
                            reply = metrics_service_pb2.ExportMetricsServiceResponse().SerializeToString()
                    else:
                        receiver.refused += 1
                        reply = b""
                    receiver.cond.notify_all()
                if status == 200 and mode == "garbage":
                    reply = b"\xff\xff\xff\xff not a protobuf message"
                size = 100 * 1000 * 1000 if status == 200 and mode == "huge" else len(reply)
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                try:
                    if size == len(reply):
                        self.wfile.write(reply)
                    else:
                        chunk = b"\x00" * (1 << 20)
                        for _ in range(size // len(chunk)):
                            self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def spans(self):
        """Every span received: (resource attributes, span), in arrival order."""
        out = []
        for request in self.traces:
            for resource_spans in request.resource_spans:
                resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        out.append((resource, span))
        return out

    def roots(self):
        return [span for _, span in self.spans() if span.name == "splashd.launch"]

    def wait(self, predicate, timeout=30.0, what="the receiver"):
        with self.cond:
            if not self.cond.wait_for(predicate, timeout):
                raise TimeoutError(f"timed out waiting for {what}")

    def close(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def attributes(span_or_event):
    return {a.key: value(a.value) for a in span_or_event.attributes}
